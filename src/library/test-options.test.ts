import { describe, expect, it } from 'vitest';
import { validateTestOptions } from './test-options.ts';
import { deselectionReason } from '../checks/runner/conformance-results.ts';

describe('validateTestOptions', () => {
  it("refuses an empty capability name (--expect '', --expect a,,b) naming the flag, exit 2", () => {
    const flag = (name: string): string => `--${name}`;
    for (const given of [[''], ['json-object', ''], ['  ']]) {
      expect(() => validateTestOptions({ expect: given }, 'iari test', flag)).toThrow(expect.objectContaining({ code: 'IARI_USAGE', exitCode: 2, message: "iari test: --expect needs capability names, comma-separated; got an empty one" }));
    }
    expect(() => validateTestOptions({ expect: [''] })).toThrow(/^runConformance: expect needs capability names/);
    expect(validateTestOptions({ expect: ['json-object'] }).expect).toEqual(['json-object']);
    expect(validateTestOptions({}).expect).toEqual([]);
  });

  it('--python: an empty value or a path that is no file is a usage error naming the flag; a bare name is kept for PATH', () => {
    const flag = (name: string): string => `--${name}`;
    expect(() => validateTestOptions({ python: ' ' }, 'iari test', flag)).toThrow(expect.objectContaining({ code: 'IARI_USAGE', exitCode: 2, message: 'iari test: --python needs a Python interpreter (a path, or a name on PATH)' }));
    expect(() => validateTestOptions({ python: '/no/such/dir/python3' }, 'iari test', flag)).toThrow(expect.objectContaining({ code: 'IARI_USAGE', message: 'iari test: --python names no file: /no/such/dir/python3' }));
    expect(validateTestOptions({ python: 'python3.11' }).python).toBe('python3.11');
    expect(validateTestOptions({ python: process.execPath }).python).toBe(process.execPath);
    expect(validateTestOptions({}).python).toBeUndefined();
  });
});

describe('selection by area and scope (issue 43)', () => {
  it('--skip and --only take areas (ME) and area families (RCPT: every RCPT-* area) as their IDs; an unknown one exits 2 naming it and listing the areas', () => {
    const v = validateTestOptions({ skip: ['ME', 'RCPT', 'AUTH-001'] });
    expect(v.selection.skip).toContain('ME-001');
    expect(v.selection.skip).toContain('RCPT-CHAIN-001');
    expect(v.selection.skip).toContain('RCPT-SIG-001');
    expect(v.selection.skip).toContain('AUTH-001');
    expect(v.selection.skip).not.toContain('AUTH-003');
    expect(v.selection.skip.some((id) => id.startsWith('CHAT-'))).toBe(false);
    expect(validateTestOptions({ only: ['CHAT-STREAM'] }).selection.only.every((id) => id.startsWith('CHAT-STREAM-'))).toBe(true);
    expect(() => validateTestOptions({ skip: ['NOPE'] })).toThrow(/unknown requirement\(s\) or area\(s\): NOPE \(areas: AUTH, /);
  });

  it('--scope openai leaves the interface\'s extras out with a reason, judges the rest, and a bad scope exits 2', () => {
    const v = validateTestOptions({ scope: 'openai' });
    const info = (id: string) => ({ id, grade: 'MUST' as const, title: id });
    expect(deselectionReason(info('ME-001') as never, v.selection)).toMatch(/scope openai \(ME is one of the interface's extras\)/);
    expect(deselectionReason(info('AUTH-001') as never, v.selection)).toMatch(/needs GET \/v1\/me/);
    expect(deselectionReason(info('AUTH-003') as never, v.selection)).toBeUndefined();
    expect(deselectionReason(info('CHAT-001') as never, v.selection)).toBeUndefined();
    expect(deselectionReason(info('ME-001') as never, validateTestOptions({}).selection)).toBeUndefined();
    expect(() => validateTestOptions({ scope: 'vllm' as never })).toThrow(/scope must be interface or openai/);
  });

  it("AUTH-001: token '' without noToken is an implicit no-token run, noToken accepts it, and noToken with a token or without a base URL is a usage error; scope openai keeps the rule (its AUTH-003 still needs a token)", () => {
    const base = 'http://127.0.0.1:9/v1';
    const implicit = validateTestOptions({ baseUrl: base, token: '' });
    expect(implicit.selection.noToken).toBe('implicit');
    expect(implicit.target).toMatchObject({ kind: 'external', token: '' });
    const accepted = validateTestOptions({ baseUrl: base, noToken: true });
    expect(accepted.selection.noToken).toBe('accepted');
    expect(accepted.target).toMatchObject({ kind: 'external', token: '' });
    expect(validateTestOptions({ baseUrl: base, token: 'a-token-of-some-length' }).selection.noToken).toBeUndefined();
    expect(validateTestOptions({ baseUrl: base, token: 'a-token-of-some-length', noToken: false }).selection.noToken).toBeUndefined();
    expect(validateTestOptions({}).selection.noToken).toBeUndefined();
    expect(() => validateTestOptions({ baseUrl: base, token: 'a-token-of-some-length', noToken: true })).toThrow(/runConformance: noToken says the server has no auth: give no token with it/);
    expect(() => validateTestOptions({ noToken: true })).toThrow(/runConformance: noToken applies to a server given with a base URL/);
    expect(() => validateTestOptions({ baseUrl: base, noToken: 'yes' as never })).toThrow(/noToken must be true or false/);
    // Scope openai does not exclude everything that needs a token: AUTH-003 (a bad token is refused) is judged in it.
    const openai = validateTestOptions({ baseUrl: base, token: '', scope: 'openai' });
    expect(openai.selection.noToken).toBe('implicit');
    expect(deselectionReason({ id: 'AUTH-003', grade: 'MUST', title: 'x' } as never, openai.selection)).toMatch(/^not tested: the run sends no token/);
  });
});
