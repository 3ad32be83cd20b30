import fc from 'fast-check';
import { readAllSse } from '../../src/client/sse-reader.ts';
import { EventBounds, type EventRefusal } from '../../src/load/measure/event-bounds.ts';
import { depthOf, jsonText, parsed } from '../json-shape.ts';
import { recordedStreams, sseStream } from '../sse-streams.ts';
import { bytewise, cutsOf, holds, neverThrows, show, split, text, utf8, type FuzzTarget } from '../target.ts';

// Small bounds, so that inputs of a few KiB reach them.
const LIMITS = { jsonDepth: 8, sseEventBytes: 256 };

function refusal(reads: readonly Uint8Array[], stream: boolean): EventRefusal['finding'] | null {
  const bounds = new EventBounds(stream, LIMITS);
  return neverThrows(() => {
    for (const r of reads) {
      const refused = bounds.feed(r);
      if (refused !== null) return refused.finding;
    }
    return null;
  }, 'EventBounds.feed');
}

function run(input: Uint8Array): void {
  for (const stream of [true, false]) {
    const whole = refusal([input], stream);
    const cuts = cutsOf(input);
    holds(refusal(split(input, cuts), stream) === whole, () => `${stream ? 'stream' : 'body'}: the refusal depends on where the reads split (cuts ${show(cuts)})`);
    if (input.length <= 4096) holds(refusal(bytewise(input), stream) === whole, () => `${stream ? 'stream' : 'body'}: the refusal differs one byte per read`);
    if (whole !== null) continue;
    if (!stream) {
      const body = parsed(text(input));
      holds(body === undefined || depthOf(body.value) <= LIMITS.jsonDepth, () => `body: JSON nested ${depthOf(body?.value)} deep passed the ${LIMITS.jsonDepth} bound`);
      continue;
    }
    // What the check worker will read of the stream (the SSE reader): each event's data must be within both bounds.
    for (const ev of readAllSse(input).events) {
      if (ev.kind !== 'message') continue;
      holds(ev.data.length <= LIMITS.sseEventBytes, () => `event ${ev.index}: ${ev.data.length} characters of data (${ev.dataLines} lines) passed the ${LIMITS.sseEventBytes}-byte bound: ${show(ev.data, 120)}`);
      const json = parsed(ev.data);
      holds(json === undefined || depthOf(json.value) <= LIMITS.jsonDepth, () => `event ${ev.index}: JSON nested ${depthOf(json?.value)} deep passed the ${LIMITS.jsonDepth} bound: ${show(ev.data, 120)}`);
    }
  }
}

export const eventBounds: FuzzTarget = {
  name: 'event-bounds',
  sources: ['src/load/measure/event-bounds.ts'],
  invariants: [
    'feed never throws; its refusal (or none) is the same however the bytes are split into reads',
    'when it refuses nothing, every event the SSE reader then dispatches holds at most the event bound of data, and its JSON nests at most the depth bound (a whole body: its JSON nests within the bound)',
    'one input of up to 64 KiB takes at most 1 s',
  ],
  reference: 'the SSE reader and JSON.parse (what the check worker reads after it)',
  maxLen: 64 * 1024,
  timeBoundMs: 1_000,
  valid: fc.oneof(sseStream(jsonText), jsonText.map(utf8)),
  seeds: recordedStreams,
  run,
};
