import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from './cli-run.ts';

const dir = mkdtempSync(join(tmpdir(), 'iari-receipts-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const acts = [
  { act: { verb: 'model.call', resource: 'gpt-x' }, decision: { result: 'allowed' }, cost: { amount: '0.01', unit: 'USD' } },
  { gate: 0, outcome: { status: 'ok', resolved: { provider: 'p', model: 'gpt-x', boundary: [] } }, cost: { amount: '0.009', unit: 'USD' } },
  { act: { verb: 'stop.approve', resource: 's/1' }, decision: { result: 'allowed' }, cost: { amount: '0', unit: 'USD' }, approval: true },
  { act: { verb: 'model.call', resource: 'gpt-x' }, decision: { result: 'denied', reason: 'PROTO_DENY_POLICY', subcode: 'X_CAP_M', prose: 'cap' }, cost: { amount: '0', unit: 'USD' } },
];

describe('iari receipts', () => {
  it('keygen writes a 0600 private key file and a .pub, and prints only the public keyref', async () => {
    const r = await cli(['keygen', '--out', join(dir, 'iss')]);
    expect(r.code).toBe(0);
    expect(statSync(join(dir, 'iss.key')).mode & 0o777).toBe(0o600);
    const pub = readFileSync(join(dir, 'iss.pub'), 'utf8').trim();
    expect(r.out.trim()).toBe(pub);
    const d = (JSON.parse(readFileSync(join(dir, 'iss.key'), 'utf8')) as { d: string }).d;
    expect(r.out + r.err).not.toContain(d);
    expect((await cli(['keygen', '--out', join(dir, 'iss')])).code).toBe(2);
    expect((await cli(['keygen', '--out', join(dir, 'appr')])).code).toBe(0);
  });

  it('sign links acts into a chain that verify accepts (exit 0) and a tampered copy fails (exit 1)', async () => {
    writeFileSync(join(dir, 'acts.jsonl'), acts.map((a) => JSON.stringify(a)).join('\n'));
    const s = await cli(['sign', join(dir, 'acts.jsonl'), '--key', join(dir, 'iss.key'), '--approver-key', join(dir, 'appr.key'), '--out', join(dir, 'chain.jsonl')]);
    expect(s.code).toBe(0);
    const ok = await cli(['verify', join(dir, 'chain.jsonl'), '--trust', join(dir, 'iss.pub'), '--approver', join(dir, 'appr.pub')]);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/VALID {2}4 receipts/);
    expect(ok.out).toMatch(/cannot be detected/);
    writeFileSync(join(dir, 'bad.jsonl'), readFileSync(join(dir, 'chain.jsonl'), 'utf8').replace('"s/1"', '"s/2"'));
    const bad = await cli(['verify', join(dir, 'bad.jsonl'), '--trust', join(dir, 'iss.pub'), '--approver', join(dir, 'appr.pub'), '--json']);
    expect(bad.code).toBe(1);
    const json = JSON.parse(bad.out) as { files: { valid: boolean; errors: { code: string; index: number }[] }[] };
    expect(json.files[0]?.valid).toBe(false);
    expect(json.files[0]?.errors.map((e) => `${e.code}@${e.index}`)).toEqual(['SIG_INVALID@2', 'APPROVAL_SIG_INVALID@2', 'CHAIN_BREAK@3']);
  });

  it('checks the expected head: the full chain passes, a truncated one fails with HEAD_MISMATCH', async () => {
    const lines = readFileSync(join(dir, 'chain.jsonl'), 'utf8').trim().split('\n');
    const { digestOf } = await import('../../src/receipts/index.ts');
    const head = digestOf(JSON.parse(lines.at(-1) as string));
    writeFileSync(join(dir, 'short.jsonl'), `${lines.slice(0, -1).join('\n')}\n`);
    const trust = ['--trust', join(dir, 'iss.pub'), '--approver', join(dir, 'appr.pub'), '--head', head];
    expect((await cli(['verify', join(dir, 'chain.jsonl'), ...trust])).code).toBe(0);
    const short = await cli(['verify', join(dir, 'short.jsonl'), ...trust]);
    expect(short.code).toBe(1);
    expect(short.out).toContain('HEAD_MISMATCH');
  });

  it('--payloads checks input_digest and output_digest by Receipt id (D-RCPT-13)', async () => {
    const body = { model: 'gpt-x', messages: [{ role: 'user', content: 'hi' }], temperature: 0.7 };
    const output = [{ role: 'assistant', content: 'hello' }];
    const { digestOf } = await import('../../src/receipts/index.ts');
    const a = [
      { act: { verb: 'model.call', resource: 'gpt-x', input_digest: digestOf(body) }, decision: { result: 'allowed' }, cost: { amount: '0.01', unit: 'USD' }, id: 'r_gate' },
      { gate: 0, outcome: { status: 'ok', output_digest: digestOf(output), resolved: { provider: 'p', model: 'gpt-x', boundary: [] } }, cost: { amount: '0.009', unit: 'USD' }, id: 'r_out' },
    ];
    writeFileSync(join(dir, 'pacts.jsonl'), a.map((x) => JSON.stringify(x)).join('\n'));
    expect((await cli(['sign', join(dir, 'pacts.jsonl'), '--key', join(dir, 'iss.key'), '--out', join(dir, 'pchain.jsonl')])).code).toBe(0);
    const verify = (payloads: unknown) => {
      writeFileSync(join(dir, 'payloads.json'), JSON.stringify(payloads));
      return cli(['verify', join(dir, 'pchain.jsonl'), '--trust', join(dir, 'iss.pub'), '--payloads', join(dir, 'payloads.json'), '--json']);
    };
    expect((await verify({ r_gate: { input: body }, r_out: { output } })).code).toBe(0);
    const bad = await verify({ r_gate: { input: { ...body, temperature: 0.8 } }, r_out: { output: [{ role: 'assistant', content: 'hellO' }] } });
    expect(bad.code).toBe(1);
    const json = JSON.parse(bad.out) as { files: { errors: { code: string; index: number; pointer: string }[] }[] };
    expect(json.files[0]?.errors.map((e) => `${e.code}@${e.index}${e.pointer}`)).toEqual(['IO_DIGEST_MISMATCH@0/act/input_digest', 'IO_DIGEST_MISMATCH@1/outcome/output_digest']);
    expect((await verify([])).code).toBe(2);
    expect((await verify({ r_gate: { request: body } })).code).toBe(2);
  });

  it('--strict-clock makes an iat far in the future an error; by default it is a warning', async () => {
    writeFileSync(join(dir, 'future.jsonl'), JSON.stringify({ act: { verb: 'model.call', resource: 'x' }, decision: { result: 'denied', reason: 'PROTO_DENY_POLICY', subcode: 'X_A_B', prose: 'no' }, cost: { amount: '0', unit: 'USD' }, iat: 4_000_000_000 }));
    expect((await cli(['sign', join(dir, 'future.jsonl'), '--key', join(dir, 'iss.key'), '--out', join(dir, 'fchain.jsonl')])).code).toBe(0);
    const trust = ['--trust', join(dir, 'iss.pub'), '--json'];
    const lenient = await cli(['verify', join(dir, 'fchain.jsonl'), ...trust]);
    expect(lenient.code).toBe(0);
    expect(lenient.out).toContain('IAT_FUTURE');
    expect((await cli(['verify', join(dir, 'fchain.jsonl'), ...trust, '--strict-clock'])).code).toBe(1);
  });

  it('accepts --jobs and rejects a bad value', async () => {
    expect((await cli(['verify', join(dir, 'chain.jsonl'), '--trust', join(dir, 'iss.pub'), '--approver', join(dir, 'appr.pub'), '--jobs', '2'])).code).toBe(0);
    expect((await cli(['verify', join(dir, 'chain.jsonl'), '--jobs', '0'])).code).toBe(2);
  });

  it('exits 2 on unreadable input and on bad arguments', async () => {
    expect((await cli(['verify', join(dir, 'missing.jsonl')])).code).toBe(2);
    expect((await cli(['verify', join(dir, 'chain.jsonl'), '--level', '4'])).code).toBe(2);
    expect((await cli(['verify', join(dir, 'chain.jsonl'), '--trust', 'did:key:zNope'])).code).toBe(2);
    expect((await cli(['verify', join(dir, 'chain.jsonl'), '--head', 'sha256:ABC'])).code).toBe(2);
    expect((await cli(['verify'])).code).toBe(2);
    expect((await cli(['frobnicate'])).code).toBe(2);
  });

  it('prints its own help', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('iari receipts verify FILE...');
  });
});
