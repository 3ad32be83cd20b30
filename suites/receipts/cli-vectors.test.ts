import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VECTORS_PATH } from '../../scripts/gen-receipt-vectors.ts';
import { cli } from './cli-run.ts';
import { pairs, type VectorFile, type VectorTest } from './vector-runner.ts';

// Issue 23: `iari receipts verify` follows the same text as the library. Every vector whose options
// the command line can express is run through the command: refused → exit 2 before any Receipt is
// read, valid → exit 0, invalid → exit 1 with the same (code, index) findings.

const file = JSON.parse(readFileSync(VECTORS_PATH, 'utf8')) as VectorFile;
const dir = mkdtempSync(join(tmpdir(), 'iari-receipts-vectors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The flags for a vector's options, or undefined when the command line cannot express them. */
function flags(t: VectorTest): string[] | undefined {
  const o = t.options;
  // Payloads by index and the verifier's clock have no flag (the command keys payloads by id and reads its own clock).
  if (o.payloads !== undefined || o.strictClock === true || [...t.errors, ...t.warnings].some((f) => f.code === 'IAT_FUTURE')) return undefined;
  const out = ['--jobs', '1', '--json', '--level', String(o.level ?? 1)];
  for (const k of o.trustedIssuers ?? []) out.push('--trust', k);
  for (const k of o.approvers ?? []) out.push('--approver', k);
  for (const c of o.tokenCommitments ?? []) out.push('--token-commitment', c);
  if (o.grantId !== undefined) out.push('--grant-id', o.grantId);
  if (o.serviceId !== undefined) out.push('--service-id', o.serviceId);
  if (o.expectedHead !== undefined) out.push('--head', o.expectedHead);
  if (o.strictWire === true) out.push('--strict-wire');
  if (o.payloadsFile !== undefined) {
    const path = join(dir, `payloads-${t.tcId}.json`);
    writeFileSync(path, o.payloadsFile);
    out.push('--payloads', path);
  }
  return out;
}

const cases = file.testGroups.flatMap((g) => g.tests).flatMap((t) => {
  const f = flags(t);
  return f === undefined ? [] : [[t.tcId, t.comment, t, f] as const];
});

describe('iari receipts verify against the vectors (fixtures/receipts)', () => {
  it('runs the refused vectors and most of the others through the command line', () => {
    expect(cases.filter(([, , t]) => t.result === 'refused').length).toBeGreaterThanOrEqual(8);
    expect(cases.length).toBeGreaterThan(170);
  });

  it.each(cases)('vector %i through the CLI: %s', async (_id, _comment, t, f) => {
    const input = join(dir, `input-${t.tcId}`);
    writeFileSync(input, 'text' in t.input ? t.input.text : Buffer.from(t.input.base64, 'base64'));
    const r = await cli(['verify', input, ...f]);
    expect(r.code, r.err).toBe(t.result === 'refused' ? 2 : t.result === 'valid' ? 0 : 1);
    if (t.result === 'refused') {
      expect(r.out).toBe('');
      return;
    }
    const json = JSON.parse(r.out) as { files: { errors: { code: string; index: number | null }[]; warnings: { code: string; index: number | null }[] }[] };
    expect(pairs(json.files[0]?.errors ?? [])).toEqual(pairs(t.errors));
    expect(pairs(json.files[0]?.warnings ?? [])).toEqual(pairs(t.warnings));
  });
});
