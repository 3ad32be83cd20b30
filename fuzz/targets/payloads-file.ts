import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { readPayloadsBytes } from '../../src/receipts/payloads-file.ts';
import { readStrictJson } from '../../src/receipts/strict-json.ts';
import { depthOf, jsonText, parsed } from '../json-shape.ts';
import { holds, neverThrows, show, utf8, type FuzzTarget } from '../target.ts';

const MEMBERS = new Set(['input', 'output', 'context']);
const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function run(input: Uint8Array): void {
  const r = neverThrows(() => readPayloadsBytes(input), 'readPayloadsBytes');
  const strict = readStrictJson(input, { maxBytes: 1 << 30, maxDepth: 256, anyNumber: true });
  const json = strict.ok ? parsed(strict.text) : undefined;
  const shaped = json !== undefined && isObj(json.value) && Object.values(json.value).every((e) => isObj(e) && Object.keys(e).every((k) => MEMBERS.has(k)));
  if (!r.ok) {
    holds(r.detail.length > 0 && r.detail.length < 2000, () => `refusal detail of ${r.detail.length} characters`);
    // A file the strict reader reads, shaped as the format says, is not refused.
    holds(!shaped, () => `refused a well-formed payloads file: ${r.detail}`);
    return;
  }
  holds(shaped, () => `accepted a file that is not a JSON object of {"input"?, "output"?, "context"?}: ${show(json?.value)}`);
  const value = json.value as Record<string, Record<string, unknown>>;
  holds(isDeepStrictEqual([...r.byId.keys()].sort(), Object.keys(value).sort()), () => `ids ${show([...r.byId.keys()])} vs ${show(Object.keys(value))}`);
  for (const [id, entry] of r.byId) holds(isDeepStrictEqual(entry, value[id]), () => `entry ${show(id)}: ${show(entry)} vs ${show(value[id])}`);
  holds(depthOf(value) <= 256, () => `accepted JSON nested ${depthOf(value)} deep`);
}

const entry = fc.record({ input: fc.jsonValue({ maxDepth: 3 }), output: fc.jsonValue({ maxDepth: 3 }), context: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] });
const payloads = fc.oneof(
  fc.dictionary(fc.stringMatching(/^[A-Za-z0-9._:-]{1,12}$/), entry, { maxKeys: 5 }).map((o) => JSON.stringify(o, null, Math.random() < 0.5 ? 0 : 2)),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(entry, fc.jsonValue({ maxDepth: 2 })), { maxKeys: 3 }).map((o) => JSON.stringify(o)),
  jsonText,
);

export const payloadsFile: FuzzTarget = {
  name: 'payloads-file',
  sources: ['src/receipts/payloads-file.ts', 'src/receipts/strict-json.ts'],
  invariants: [
    'never throws: a file it cannot take is refused with a reason',
    'what it accepts is a JSON object mapping ids to objects of input, output and context, read to the same values as JSON.parse; a file the strict reader reads in that shape is never refused',
    'one input of up to 64 KiB takes at most 1 s',
  ],
  reference: 'JSON.parse',
  maxLen: 64 * 1024,
  timeBoundMs: 1_000,
  valid: payloads.map(utf8),
  run,
};
