import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { readAllSse } from '../../src/client/sse-reader.ts';
import { jsonDepthExceeded, parseJsonBounded, previewJson, SseJsonDepthGuard } from '../../src/client/json-depth.ts';
import { depthOf, jsonText, parsed } from '../json-shape.ts';
import { recordedStreams, sseStream } from '../sse-streams.ts';
import { bytewise, cutsOf, holds, neverThrows, show, split, text, utf8, type FuzzTarget } from '../target.ts';

const MAX = 8;

function guardTrips(reads: readonly Uint8Array[]): boolean {
  const guard = new SseJsonDepthGuard(MAX);
  return neverThrows(() => reads.some((r) => guard.feed(r)), 'SseJsonDepthGuard.feed');
}

function run(input: Uint8Array): void {
  const source = text(input);
  // The scan and the bounded parse, against JSON.parse and the parsed value's real depth.
  const at = neverThrows(() => jsonDepthExceeded(source, MAX), 'jsonDepthExceeded');
  const bounded = neverThrows(() => parseJsonBounded(source, MAX), 'parseJsonBounded');
  const json = parsed(source);
  holds(at === -1 || (at >= 0 && at < source.length && (source[at] === '[' || source[at] === '{')), () => `jsonDepthExceeded points at ${at}: ${show(source[at])}`);
  if (json !== undefined) {
    const depth = depthOf(json.value);
    holds((depth > MAX) === (at >= 0), () => `JSON nested ${depth} deep: the scan says ${at >= 0 ? `too deep at ${at}` : 'within'} ${MAX}`);
    holds(bounded.ok === depth <= MAX, () => `JSON nested ${depth} deep: parseJsonBounded ${bounded.ok ? 'parsed it' : 'refused it'}`);
    if (bounded.ok) holds(isDeepStrictEqual(bounded.value, json.value), () => 'parseJsonBounded read another value than JSON.parse');
  } else holds(!bounded.ok, () => 'parseJsonBounded accepted text JSON.parse refuses');
  if (bounded.ok) {
    const preview = neverThrows(() => previewJson(bounded.value, 80), 'previewJson');
    holds(preview.length <= 83, () => `previewJson wrote ${preview.length} characters for a bound of 80`);
  }
  // The guard over an event stream: it trips, however the stream is split, exactly when an event's data parses to JSON deeper than the bound.
  const whole = guardTrips([input]);
  holds(guardTrips(split(input, cutsOf(input))) === whole, () => `SseJsonDepthGuard: the verdict depends on where reads split (cuts ${show(cutsOf(input))})`);
  if (input.length <= 4096) holds(guardTrips(bytewise(input)) === whole, () => 'SseJsonDepthGuard: the verdict differs one byte per read');
  if (!whole) {
    for (const ev of readAllSse(input).events) {
      const data = ev.kind === 'message' ? parsed(ev.data) : undefined;
      holds(data === undefined || depthOf(data.value) <= MAX, () => `SseJsonDepthGuard let through event ${ev.index} whose JSON nests ${depthOf(data?.value)} deep: ${show(ev.data, 120)}`);
    }
  }
}

export const jsonDepth: FuzzTarget = {
  name: 'json-depth',
  sources: ['src/client/json-depth.ts'],
  invariants: [
    'jsonDepthExceeded, parseJsonBounded, previewJson and the SSE depth guard never throw',
    'on text JSON.parse reads, the scan refuses exactly the values nested deeper than the bound, and the bounded parse gives the same value as JSON.parse; text JSON.parse refuses is refused',
    "the SSE guard's verdict is the same however the stream is split, and when it does not trip no event's JSON nests deeper than the bound",
    'one input of up to 64 KiB takes at most 1 s',
  ],
  reference: 'JSON.parse (and the parsed value\'s depth)',
  maxLen: 64 * 1024,
  timeBoundMs: 1_000,
  valid: fc.oneof(jsonText.map(utf8), sseStream(jsonText)),
  seeds: recordedStreams,
  run,
};
