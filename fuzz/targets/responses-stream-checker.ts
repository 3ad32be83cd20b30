import fc from 'fast-check';
import type { Json } from '../../src/protocols/responses/responses-body.ts';
import { responsesRuleCodes } from '../../src/protocols/responses/responses-rules.ts';
import { checkResponsesStream, type ResponsesStreamOptions, type ResponsesStreamResult } from '../../src/protocols/responses/responses-stream.ts';
import { sseFrame, streamEvents, type PlannedItem, type PlannedResponse } from '../../src/protocols/responses/responses-writer.ts';
import { recordedStreams } from '../sse-streams.ts';
import { streamCheckerRun } from '../stream-checker-run.ts';
import { utf8, type FuzzTarget } from '../target.ts';

const rules = new Set<string>(responsesRuleCodes);
const OPTIONS: ResponsesStreamOptions[] = [{}, { maxFindingsPerRule: 2, maxOutputTokens: 16, metadata: { k: 'v' }, countTokens: (t) => t.length }];

/** What the verdict means, whatever the reads: the findings and facts without read indexes and arrival times. */
function meaning(r: ResponsesStreamResult): unknown {
  const { firstEventAt: _a, firstOutputAt: _b, firstFunctionCallAt: _c, terminalAt: _d, outputEvents, ...facts } = r.facts;
  return { findings: r.findings, suppressed: r.suppressed, facts, output: outputEvents.map(({ arrivedAt: _t, chunkIndex: _i, ...e }) => e) };
}

const run = streamCheckerRun({ who: 'checkResponsesStream', rules, options: OPTIONS, check: checkResponsesStream, meaning });

// Streams the mock's own writer makes (valid), then edited event by event: dropped, repeated,
// swapped, a member changed or removed; with or without OpenAI's event: lines and a [DONE].
const item: fc.Arbitrary<PlannedItem> = fc.oneof(
  fc.record({ kind: fc.constant('message' as const), id: fc.constantFrom('msg_1', 'msg_2'), pieces: fc.array(fc.string({ maxLength: 6 }), { maxLength: 4 }) }),
  fc.record({ kind: fc.constant('function_call' as const), id: fc.constantFrom('fc_1', 'fc_2'), callId: fc.constant('call_1'), name: fc.constantFrom('f', 'get_weather'), pieces: fc.array(fc.constantFrom('{"a":', '1}', '{}', '"x"'), { maxLength: 3 }) }),
);
const plan: fc.Arbitrary<PlannedResponse> = fc.record({ items: fc.array(item, { maxLength: 3 }), status: fc.constantFrom('completed' as const, 'incomplete' as const) }).map(({ items, status }) => {
  const out = items.reduce((n, i) => n + i.pieces.length, 0);
  return { base: { id: 'resp_1', object: 'response', created_at: 1_790_000_000, model: 'm', metadata: { k: 'v' }, tools: [] }, items, status, usage: { input_tokens: 9, output_tokens: out, total_tokens: 9 + out }, completedAt: 1_790_000_001 };
});
type Edit = { kind: 'drop' | 'repeat' | 'swap'; at: number } | { kind: 'member'; at: number; key: string; value: unknown };
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constantFrom('drop' as const, 'repeat' as const, 'swap' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('member' as const),
    at: fc.nat(),
    key: fc.constantFrom('sequence_number', 'output_index', 'content_index', 'item_id', 'type', 'delta', 'text', 'arguments', 'item', 'part', 'response'),
    value: fc.option(fc.oneof(fc.constantFrom<unknown>('response.completed', 'response.failed', 'response.output_text.delta', 0, 1, -1, 1.5, null, {}), fc.jsonValue({ maxDepth: 2 })), { nil: undefined }),
  }),
);
function edited(events: Json[], edits: readonly Edit[]): Json[] {
  const list = events.map((e) => structuredClone(e));
  for (const e of edits) {
    if (list.length === 0) break;
    const i = e.at % list.length;
    const ev = list[i] as Json;
    if (e.kind === 'drop') list.splice(i, 1);
    else if (e.kind === 'repeat') list.splice(i, 0, structuredClone(ev));
    else if (e.kind === 'swap' && i + 1 < list.length) [list[i], list[i + 1]] = [list[i + 1] as Json, ev];
    else if (e.kind === 'member' && e.value === undefined) delete ev[e.key];
    else if (e.kind === 'member') ev[e.key] = e.value;
  }
  return list;
}
const stream: fc.Arbitrary<Uint8Array> = fc.tuple(plan, fc.array(edit, { maxLength: 3 }), fc.boolean(), fc.boolean()).map(([p, edits, eventLines, done]) => {
  const list = edited(
    streamEvents(p).map((w) => w.event),
    edits,
  );
  const frames = list.map((e) => (eventLines ? sseFrame(e) : `data: ${JSON.stringify(e)}\n\n`));
  return utf8(frames.join('') + (done ? 'data: [DONE]\n\n' : ''));
});

export const responsesStreamChecker: FuzzTarget = {
  name: 'responses-stream-checker',
  sources: ['src/protocols/responses/responses-stream.ts', 'src/protocols/responses/responses-body.ts'],
  invariants: [
    'never throws on any bytes; every finding names a rule of the closed set, at a byte inside the stream, at most the kept number per rule',
    'its result serialises (JSON) and clones (what crosses to the main thread)',
    'its findings and facts are the same however the bytes are split into reads',
    'one input of up to 64 KiB takes at most 2 s',
  ],
  maxLen: 64 * 1024,
  timeBoundMs: 2_000,
  valid: stream,
  // The recorded chat streams bring the framing corners (BOM, CR and CRLF, comments, cut streams); the writer's streams the grammar.
  seeds: recordedStreams,
  run,
};
