import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../../errors.ts';
import { parseBaseline } from './baseline-file.ts';

// What a baseline file's reader refuses, found by fuzzing it (fuzz/targets/baseline-file.ts); the
// format's own rules are tested with the baseline they feed (apply-baseline.test.ts).
const ids = new Set(['CHAT-002', 'CHAT-004']);

function refusal(text: string): string {
  try {
    parseBaseline(text, 'known.yaml', ids);
  } catch (error) {
    if (isHarnessError(error) && error.exitCode === 2) return error.message;
    throw error;
  }
  return 'accepted';
}

describe('baseline file refusals', () => {
  it('a file nested thousands deep is a configuration error, not a stack overflow (fuzz finding: RangeError from the yaml parser)', () => {
    expect(refusal(`known:\n  ${'- '.repeat(3000)}x\n  - y\n`)).toBe('iari test: known.yaml: not valid YAML iari can read: nested too deeply');
    expect(refusal(`${'a:\n '.repeat(3000)}x\nb: 1\n`)).toMatch(/nested too deeply|not valid YAML/);
  });

  it('deep unclosed flow collections are a configuration error before the yaml parser, which slows past linear on them (fuzz finding)', () => {
    expect(refusal('{"known":[' + '{"kiind"ad":[{"kiind"ad":['.repeat(1_370))).toBe('iari test: known.yaml: not valid YAML iari can read: nested too deeply');
  });

  it('quote the file\'s keys and values clipped, so a refusal stays one readable line (fuzz finding)', () => {
    const long = 'x'.repeat(5000);
    expect(refusal(JSON.stringify({ [long]: [] }))).toMatch(/^iari test: known\.yaml:1: unknown key "x{60}…" \(only "known" is allowed\)$/);
    expect(refusal(JSON.stringify({ known: [{ id: 'CHAT-002', reason: 'r', [long]: 1 }] }))).toMatch(/unknown key "x{60}…" \(allowed: /);
    expect(refusal(JSON.stringify({ known: [{ id: long, reason: 'r' }] }))).toMatch(/unknown requirement ID "x{60}…" /);
    expect(refusal(JSON.stringify({ known: [{ id: 'CHAT-002', reason: 'r', expires: long }] }))).toMatch(/got "x{60}…"$/);
    expect(refusal(`known: []\n"${'\n'.repeat(5000)}`).length).toBeLessThan(400);
  });

  it('a key or an ID holding a line feed is quoted escaped, so the refusal stays one line (found beside the scenario file\'s Jazzer.js finding)', () => {
    expect(refusal('{"e\\nx": 1}\n')).toBe('iari test: known.yaml:1: unknown key "e\\nx" (only "known" is allowed)');
    expect(refusal('known:\n  - id: "A\\nB"\n    reason: x\n')).toBe('iari test: known.yaml:2: unknown requirement ID "A\\nB" (iari requirements lists every ID)');
    expect(refusal('known:\n  - {"id\\nx": 1}\n')).not.toContain('\n');
  });
});
