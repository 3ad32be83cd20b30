import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { SseReader, sseFindingCodes, type SseEndState, type SseEvent, type SseFinding, type SseReaderOptions } from '../../src/client/sse-reader.ts';
import { someText } from '../inputs.ts';
import { recordedStreams, sseStream } from '../sse-streams.ts';
import { bytewise, cutsOf, holds, neverThrows, show, split, type FuzzTarget } from '../target.ts';

const SMALL: SseReaderOptions = { maxLineBytes: 64, maxEventBytes: 128 };

interface Reading {
  events: SseEvent[];
  end: SseEndState;
  findings: SseFinding[];
  suppressed: number;
  stats: SseReader['stats'];
}

function read(reads: readonly Uint8Array[], options: SseReaderOptions): Reading {
  const reader = new SseReader(options);
  const events: SseEvent[] = [];
  const end = neverThrows(() => {
    reads.forEach((chunk, i) => events.push(...reader.feed(chunk, BigInt(i))));
    return reader.end();
  }, 'SseReader');
  return { events, end, findings: [...reader.findings], suppressed: reader.suppressedFindings, stats: reader.stats };
}

/** What a reading means, whatever the reads were: events and findings without the read they arrived in. */
function meaning(r: Reading): string {
  const { bytes, bom, comments, firstCommentOffset, dataNoSpace, lineEndings, events } = r.stats;
  return show(
    {
      events: r.events.map(({ arrivedAt: _a, chunkIndex: _c, ...rest }) => rest),
      findings: r.findings.map(({ chunkIndex: _c, ...rest }) => rest),
      suppressed: r.suppressed,
      partial: r.end.partialEvent,
      unterminated: r.end.unterminatedLine,
      stats: { bytes, bom, comments, firstCommentOffset, dataNoSpace, lineEndings, events },
    },
    Infinity,
  );
}

function bounded(r: Reading, input: Uint8Array, o: SseReaderOptions): void {
  let last = -1;
  for (const ev of r.events) {
    holds(ev.startOffset > last && ev.startOffset < ev.endOffset && ev.endOffset <= input.length, () => `event ${ev.index} at [${ev.startOffset}, ${ev.endOffset}) after ${last}, in ${input.length} bytes`);
    holds(ev.data.length <= (o.maxEventBytes ?? Infinity), () => `event ${ev.index} holds ${ev.data.length} characters of data, over the ${o.maxEventBytes} bound`);
    last = ev.endOffset;
  }
  const perCode = new Map<string, number>();
  for (const f of r.findings) {
    holds(sseFindingCodes.includes(f.code) && f.offset >= 0 && f.offset <= input.length, () => `finding ${show(f)}`);
    perCode.set(f.code, (perCode.get(f.code) ?? 0) + 1);
  }
  holds([...perCode.values()].every((n) => n <= 50), () => `more than 50 findings of one code kept: ${show([...perCode])}`);
}

/**
 * eventsource-parser on the same stream, decoded as the standard decodes it (UTF-8 with U+FFFD for
 * bad bytes; the leading BOM left for the parser to strip): the events it dispatches.
 */
function reference(input: Uint8Array): EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e) });
  parser.feed(new TextDecoder('utf-8', { ignoreBOM: true }).decode(input));
  return events;
}

function run(input: Uint8Array): void {
  const whole = read([input], {});
  bounded(whole, input, {});
  const reads = split(input, cutsOf(input));
  holds(meaning(read(reads, {})) === meaning(whole), () => `the events or findings depend on where the reads split the stream (cuts ${show(cutsOf(input))})`);
  if (input.length <= 4096) holds(meaning(read(bytewise(input), {})) === meaning(whole), () => 'the events or findings differ when the stream arrives one byte per read');
  const small = read([input], SMALL);
  bounded(small, input, SMALL);
  holds(meaning(read(reads, SMALL)) === meaning(small), () => `with small line and event bounds, the events or findings depend on where the reads split the stream (cuts ${show(cutsOf(input))})`);

  // Documented (docs/fuzzing.md): eventsource-parser also strips "ï»¿", the BOM's bytes read as three characters.
  if (new TextDecoder('utf-8', { ignoreBOM: true }).decode(input.subarray(0, 12)).replace(/^\uFEFF/, '').startsWith('\u00EF\u00BB\u00BF')) return;
  const ours = whole.events.filter((e) => e.kind === 'message').map((e) => ({ id: e.id, event: e.event === '' ? undefined : e.event, data: e.data }));
  const theirs = reference(input).map((e) => ({ id: e.id, event: e.event, data: e.data }));
  holds(show(ours, Infinity) === show(theirs, Infinity), () => `iari and eventsource-parser dispatch different events:\n iari:      ${show(ours)}\n reference: ${show(theirs)}`);
}

export const sseReader: FuzzTarget = {
  name: 'sse-reader',
  sources: ['src/client/sse-reader.ts'],
  invariants: [
    'feed and end never throw on any bytes',
    'the events, findings and end state are the same however the bytes are split into reads (whole, 1-12 cuts drawn from the input, one byte per read)',
    'events lie in increasing order inside the input; no event holds more data than the event bound; at most 50 findings of one code are kept',
    'the events dispatched agree with eventsource-parser on data, event type and id',
    'one input of up to 64 KiB takes at most 1 s',
  ],
  reference: 'eventsource-parser 4.1.3',
  maxLen: 64 * 1024,
  timeBoundMs: 1_000,
  valid: sseStream(someText(40)),
  seeds: recordedStreams,
  run,
};
