import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { HarnessErrorCode } from '../../src/errors.ts';
import { baselineYaml, isIsoDate, parseBaseline } from '../../src/checks/runner/baseline-file.ts';
import { harnessError, shortMessage } from '../temp-file.ts';
import { holds, ownErrorsOnly, show, text, utf8, type FuzzTarget } from '../target.ts';

const KNOWN = new Set(['CHAT-002', 'CHAT-004', 'CHAT-012', 'CHAT-STREAM-046', 'HDR-015', 'LIMIT-009', 'RCPT-001']);
const isOwn = harnessError([HarnessErrorCode.CONFIG_INVALID]);

function run(input: Uint8Array): void {
  const source = text(input);
  const r = ownErrorsOnly(() => parseBaseline(source, 'known.yaml', KNOWN), isOwn, 'parseBaseline');
  if (!r.ok) return shortMessage(r.error);
  const ids = r.value.entries.map((e) => e.id);
  holds(new Set(ids).size === ids.length && ids.every((id) => KNOWN.has(id)), () => `entries ${show(ids)}: unknown or repeated IDs accepted`);
  for (const e of r.value.entries) {
    holds(e.reason.trim() === e.reason && e.reason !== '', () => `entry ${e.id}: reason ${show(e.reason)}`);
    holds(e.expires === undefined || isIsoDate(e.expires), () => `entry ${e.id}: expires ${show(e.expires)} is not a date`);
    holds(Number.isInteger(e.line) && e.line >= 1 && e.line <= source.split(/\r\n|\r|\n/).length, () => `entry ${e.id} on line ${e.line} of ${source.split('\n').length}`);
  }
  // What --write-baseline writes of the entries reads back to the same entries.
  const written = baselineYaml(r.value.entries, 'written by the fuzz target');
  const back = ownErrorsOnly(() => parseBaseline(written, 'written.yaml', KNOWN), isOwn, 'parseBaseline (written)');
  holds(back.ok, () => `the file written from the entries is refused: ${back.ok ? '' : (back.error as Error).message}`);
  const strip = (es: typeof r.value.entries) => es.map(({ line: _l, ...e }) => e);
  holds(isDeepStrictEqual(strip(back.value.entries), strip(r.value.entries)), () => `written and read back, the entries change: ${show(strip(r.value.entries))} -> ${show(strip(back.value.entries))}`);
}

const entry = fc.record(
  {
    id: fc.oneof(fc.constantFrom(...KNOWN), fc.constantFrom('CHAT-999', 'chat-002', ' CHAT-002 ', '')),
    reason: fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('tracked in ISSUE-42', 'x: y', '- dash', '"quoted"', '#hash', 'multi\nline', '')),
    expires: fc.oneof(fc.constantFrom('2026-12-31', '2026-02-29', '2024-02-29', '2026-13-01', '31.12.2026'), fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)), fc.integer()),
    'server-version': fc.oneof(fc.constantFrom('1.3', '0.6.3', 'v2'), fc.double(), fc.boolean()),
  },
  { requiredKeys: [] },
);
const files = fc.oneof(
  fc.array(entry, { maxLength: 5 }).map((known) => stringify({ known })),
  fc.array(entry, { maxLength: 5 }).map((known) => JSON.stringify({ known })),
  fc.array(entry, { maxLength: 3 }).map((known) => stringify({ known, other: 1 })),
  fc.constantFrom('', 'known:', 'known: []', 'known: null', '# only a comment\n', '- id: CHAT-002', 'known: {id: CHAT-002}'),
);

export const baselineFile: FuzzTarget = {
  name: 'baseline-file',
  sources: ['src/checks/runner/baseline-file.ts'],
  invariants: [
    'throws nothing but a HarnessError (configuration, exit 2) whose message is one line of at most 1,000 characters',
    'every entry it returns names a known requirement once, with a reason, a real date when it expires, and its line in the file',
    'what --write-baseline writes of the entries reads back to the same entries',
    'one input of up to 64 KiB takes at most 2 s',
  ],
  reference: 'its own writer (baselineYaml) and the yaml package',
  maxLen: 64 * 1024,
  timeBoundMs: 2_000,
  valid: files.map(utf8),
  seeds: () => [utf8('known:\n  - id: CHAT-002\n    reason: completion id missing, tracked in ISSUE-42\n    expires: 2026-12-31\n  - id: CHAT-004\n    reason: object field was wrong before 1.4\n    server-version: "1.3"\n')],
  run,
};
