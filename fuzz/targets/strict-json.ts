import { isDeepStrictEqual } from 'node:util';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { DEFAULT_LIMITS, readStrictJson, type StrictJsonLimits, type StrictJsonReading } from '../../src/receipts/strict-json.ts';
import { depthOf, jsonText, parsed } from '../json-shape.ts';
import { holds, neverThrows, show, utf8, type FuzzTarget } from '../target.ts';

// The Receipt limits (integers only, depth 32, 64 KiB) and the payloads file's (any number), the latter with a smaller depth.
const RECEIPT: StrictJsonLimits = DEFAULT_LIMITS;
const PAYLOADS: StrictJsonLimits = { maxBytes: 1 << 20, maxDepth: 40, anyNumber: true };
/** The refusals JSON.parse has no reason for: what strictness adds to RFC 8259. */
const STRICTER = new Set(['JSON_DUPLICATE_KEY', 'JSON_LONE_SURROGATE', 'JSON_NUMBER_FORM', 'JSON_LIMITS', 'JSON_INVALID_UTF8']);

function check(input: Uint8Array, limits: StrictJsonLimits): void {
  const r: StrictJsonReading = neverThrows(() => readStrictJson(input, limits), 'readStrictJson');
  const fatal = (() => {
    try {
      return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(input);
    } catch {
      return undefined;
    }
  })();
  const json = fatal === undefined ? undefined : parsed(fatal);
  if (!r.ok) {
    holds(r.error.offset >= 0 && r.error.offset <= input.length, () => `error offset ${r.error.offset} outside ${input.length} bytes`);
    // A refusal is a finding's detail in a report: short, whatever the input holds.
    holds(r.error.detail.length <= 200, () => `a ${r.error.detail.length}-character detail: ${show(r.error.detail, 120)}`);
    // At most maxDepth tokens, each a member name clipped to 60 characters and escaped (~ and / written twice as long).
    holds(r.error.pointer.length <= (limits.maxDepth + 1) * (1 + 2 * 61), () => `a ${r.error.pointer.length}-character pointer: ${show(r.error.pointer, 120)}`);
    holds(json === undefined || STRICTER.has(r.error.code), () => `refused JSON that JSON.parse reads, as ${r.error.code}: ${r.error.detail}`);
    return;
  }
  holds(json !== undefined, () => `accepted text JSON.parse refuses: ${show(fatal?.slice(0, 200))}`);
  holds(isDeepStrictEqual(r.value, json.value), () => `read another value than JSON.parse: ${show(r.value)} vs ${show(json.value)}`);
  holds(input.length <= limits.maxBytes && depthOf(r.value) <= limits.maxDepth, () => `accepted ${input.length} bytes nested ${depthOf(r.value)} deep, over its limits`);
  if (r.canonical) {
    const jcs = canonicalize(r.value);
    holds(jcs === r.text, () => `says the text is its JCS form, but JCS writes ${show(jcs)} for ${show(r.text)}`);
  }
  if (r.members.length > 0) {
    const value = r.value as Record<string, unknown>;
    // In the text's order (an object lists integer-like keys first).
    holds(isDeepStrictEqual(r.members.map((m) => m.key).sort(), Object.keys(value).sort()), () => `members ${show(r.members.map((m) => m.key))} vs keys ${show(Object.keys(value))}`);
    holds(r.members.every((m, i) => i === 0 || m.start >= (r.members[i - 1]?.end ?? 0)), () => `member ranges out of order: ${show(r.members)}`);
    for (const m of r.members) {
      const member = parsed(`{${r.text.slice(m.start, m.end)}}`);
      holds(member !== undefined && isDeepStrictEqual((member.value as Record<string, unknown>)[m.key], value[m.key]), () => `member ${show(m.key)}: [${m.start}, ${m.end}) is ${show(r.text.slice(m.start, m.end))}`);
    }
  }
}

function run(input: Uint8Array): void {
  check(input, RECEIPT);
  check(input, PAYLOADS);
}

/** JSON in the forms the strict reader must tell apart: canonical and not, duplicate keys, escapes and surrogates, every number form. */
const strictCases = fc.oneof(
  fc.jsonValue({ depthSize: 'small' }).map((v) => canonicalize(v) ?? 'null'),
  jsonText,
  fc.tuple(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), fc.jsonValue({ maxDepth: 1 })).map(([k, a, b]) => `{${JSON.stringify(k)}:${JSON.stringify(a)},${JSON.stringify(k)}:${JSON.stringify(b)}}`),
  fc.constantFrom('"\\ud800"', '"\\udc00\\ud800"', '"\\ud83d\\ude00"', '1.0', '1e2', '-0', '0.1', '1E400', '9007199254740993', '01', '{"b":1,"a":2}', '{"a":1,"b":2}', '[1, 2]', '{"__proto__":{"x":1}}', '"\\u00e9"', '"\\/"'),
  fc.tuple(fc.constantFrom('', '-'), fc.nat({ max: 99999 }), fc.option(fc.nat({ max: 999 })), fc.option(fc.integer({ min: -400, max: 400 }))).map(([s, i, f, e]) => `${s}${i}${f === null ? '' : `.${f}`}${e === null ? '' : `e${e}`}`),
);

export const strictJson: FuzzTarget = {
  name: 'strict-json',
  sources: ['src/receipts/strict-json.ts'],
  invariants: [
    'never throws: every refusal is a StrictJsonError (code, offset inside the input, pointer) whose detail is at most 200 characters and whose pointer quotes each member name clipped to 60',
    'what it accepts JSON.parse reads to the same value, within the size and depth limits; what JSON.parse refuses it refuses',
    'JSON that JSON.parse reads is refused only for what strictness adds (duplicate keys, lone surrogates, number forms, limits, UTF-8 and BOM), never as a syntax error',
    'a text it calls canonical is byte for byte what `canonicalize` (RFC 8785) writes for the value; each top-level member range holds that member',
    'one input of up to 64 KiB takes at most 1 s',
  ],
  reference: 'JSON.parse; canonicalize 4.0.0 (RFC 8785 JCS)',
  maxLen: 64 * 1024,
  timeBoundMs: 1_000,
  valid: strictCases.map(utf8),
  run,
};
