import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkStream, loadGptTokenCounter, StreamValidator, type StreamCheckOptions, type StreamCheckResult, type StreamFinding } from './stream-checker.ts';
import { requirementOfRule } from './stream-rules.ts';
import { gradeOf } from '../../checks/registry/registry-view.ts';

import { chunk, defaultEnvelope, FIXTURE_CREATED, frame, textCompletion, toolArgs, toolStart, usageChunk, type Event } from '../../../test-support/stream-builder.ts';
import { toMessage } from './stream-assembly.ts';
import type { StreamRuleCode } from './stream-rules.ts';

/** A finding as the registry grades it: the requirement its rule decides and that requirement's grade. */
const SEVERITY = { MUST: 'fail', SHOULD: 'non-strict', INFO: 'informational' } as const;
const idOf = (f: StreamFinding): string => requirementOfRule(f.rule);
const severityOf = (f: StreamFinding): 'fail' | 'non-strict' | 'informational' => SEVERITY[gradeOf(requirementOfRule(f.rule))];
/** pass, fail or non-strict, as a stream's worst graded finding. */
const verdictOf = (r: StreamCheckResult): 'pass' | 'fail' | 'non-strict' => (r.findings.some((f) => severityOf(f) === 'fail') ? 'fail' : r.findings.some((f) => severityOf(f) === 'non-strict') ? 'non-strict' : 'pass');


const enc = new TextEncoder();
const base: StreamCheckOptions = { nowSeconds: FIXTURE_CREATED };

function run(stream: string | Uint8Array, options: StreamCheckOptions = {}): StreamCheckResult {
  return checkStream(typeof stream === 'string' ? enc.encode(stream) : stream, { ...base, ...options });
}

/** Requirement IDs of the findings that count (fail or non-strict), sorted, without repeats. */
function graded(r: StreamCheckResult): string[] {
  return [...new Set(r.findings.filter((f) => severityOf(f) !== 'informational').map(idOf))].sort();
}

const text = textCompletion(['Hel', 'lo']);
const withUsage = [...textCompletion(['Hi'], { usage: 'null' }), usageChunk(5, 1)];
const toolCall = [
  chunk({ role: 'assistant', content: null }),
  chunk({ tool_calls: [toolStart(0, 'call_1', 'get_weather')] }),
  chunk({ tool_calls: [toolArgs(0, '{"city":')] }),
  chunk({ tool_calls: [toolArgs(0, '"Paris"}')] }),
  chunk({}, { finish: 'tool_calls' }),
];
/** The stream with its first "X" replaced by the byte 0xFF (never valid in UTF-8). */
function withBadByte(stream: string): Uint8Array {
  const bytes = enc.encode(stream);
  bytes[bytes.indexOf(0x58)] = 0xff;
  return bytes;
}
const replace = (events: Event[], i: number, ev: Event): Event[] => events.map((e, k) => (k === i ? ev : e));

interface RuleCase {
  id: string;
  rule: StreamRuleCode;
  title: string;
  bad: string | Uint8Array;
  good: string;
  options?: StreamCheckOptions;
  severity?: 'fail' | 'non-strict' | 'informational';
}

const cases: RuleCase[] = [
  { id: 'CHAT-STREAM-002', rule: 'done-missing', title: 'a stream without [DONE] fails', bad: frame(text, { done: false }), good: frame(text) },
  { id: 'CHAT-STREAM-002', rule: 'ended-mid-event', title: 'a [DONE] without its terminating empty line fails', bad: frame(text, { done: false }) + 'data: [DONE]\n', good: frame(text) },
  { id: 'CHAT-STREAM-003', rule: 'done-not-exact', title: '[DONE] with a trailing space fails', bad: frame([...text, '[DONE] '], { done: false }), good: frame(text) },
  { id: 'CHAT-STREAM-003', rule: 'done-not-exact', title: '[DONE] with a leading space after data: and a trailing tab fails', bad: frame(text, { done: false }) + 'data:  [DONE]\t\n\n', good: frame(text, { eol: '\r\n' }) },
  { id: 'CHAT-STREAM-003', rule: 'done-not-exact', title: 'a [DONE] line ending in CR in an LF stream fails, while an all-CRLF stream passes', bad: frame(text, { done: false }) + 'data: [DONE]\r\n\n', good: frame(text, { eol: '\r\n' }) },
  { id: 'CHAT-STREAM-004', rule: 'data-after-done', title: 'data after [DONE] fails', bad: frame(text) + frame([chunk({ content: 'x' })], { done: false }), good: frame(text) },
  { id: 'CHAT-STREAM-005', rule: 'non-json-data', title: 'non-JSON data fails', bad: frame(replace(text, 1, 'Hel')), good: frame(text) },
  { id: 'CHAT-STREAM-005', rule: 'non-json-data', title: 'JSON data that is not an object fails', bad: frame([...text.slice(0, 1), '[1,2]', ...text.slice(1)]), good: frame(text) },
  { id: 'CHAT-STREAM-005', rule: 'empty-data', title: 'an empty data field fails', bad: frame([...text.slice(0, 1), '', ...text.slice(1)]), good: frame(text) },
  { id: 'CHAT-STREAM-041', rule: 'invalid-utf8', title: 'invalid UTF-8 fails', bad: withBadByte(frame(replace(text, 1, chunk({ content: 'HeXl' })))), good: frame(text) },
  { id: 'CHAT-STREAM-006', rule: 'object-wrong', title: 'a wrong object constant fails (openai-python .stream() skips the chunk and asserts)', bad: frame(replace(text, 1, chunk({ content: 'Hel' }, { envelope: { object: 'chat.completions.chunk' } }))), good: frame(text), severity: 'fail' },
  { id: 'CHAT-STREAM-007', rule: 'id-invalid', title: 'an empty id is non-strict (clients pass it through)', bad: frame(text.map((c) => ({ ...c, id: '' }))), good: frame(text), severity: 'non-strict' },
  { id: 'CHAT-STREAM-008', rule: 'id-changed', title: 'an id that changes between chunks fails (Microsoft.Extensions.AI splits the answer by id)', bad: frame(replace(text, 2, chunk({ content: 'lo' }, { envelope: { id: 'chatcmpl-other' } }))), good: frame(text) },
  { id: 'CHAT-STREAM-009', rule: 'created-invalid', title: 'created in milliseconds fails', bad: frame(text.map((c) => ({ ...c, created: FIXTURE_CREATED * 1000 }))), good: frame(text) },
  { id: 'CHAT-STREAM-047', rule: 'created-stale', title: 'created two days from now is non-strict (clients pass it through)', bad: frame(text.map((c) => ({ ...c, created: FIXTURE_CREATED - 2 * 86_400 }))), good: frame(text), severity: 'non-strict' },
  { id: 'CHAT-STREAM-009', rule: 'created-invalid', title: 'created in milliseconds fails', bad: frame(text.map((c) => ({ ...c, created: FIXTURE_CREATED * 1000 }))), good: frame(text) },
  { id: 'CHAT-STREAM-010', rule: 'created-changed', title: 'created that changes between chunks is non-strict', bad: frame(replace(text, 2, chunk({ content: 'lo' }, { envelope: { created: FIXTURE_CREATED + 1 } }))), good: frame(text), severity: 'non-strict' },
  { id: 'CHAT-STREAM-011', rule: 'model-invalid', title: 'a chunk without model is non-strict', bad: frame(replace(text, 1, { ...chunk({ content: 'Hel' }), model: undefined })), good: frame(text), severity: 'non-strict' },
  { id: 'CHAT-STREAM-012', rule: 'choices-invalid', title: 'choices null on a content chunk fails', bad: frame([...text.slice(0, 1), { ...defaultEnvelope, choices: null }, ...text.slice(1)]), good: frame(text) },
  { id: 'CHAT-STREAM-044', rule: 'choices-empty', title: 'an extra chunk with choices [] that is not the usage chunk is non-strict (Azure sends one)', bad: frame([...text.slice(0, 1), { ...defaultEnvelope, choices: [] }, ...text.slice(1)]), good: frame(text), severity: 'non-strict' },
  { id: 'CHAT-STREAM-013', rule: 'choice-index-invalid', title: 'a choice index that drifts upward fails', bad: frame(text.map((c, i) => chunk((c['choices'] as { delta: Record<string, unknown> }[])[0]?.delta ?? {}, { index: i, finish: i === 3 ? 'stop' : null }))), good: frame(text) },
  { id: 'CHAT-STREAM-014', rule: 'role-missing-first', title: 'a first delta without role fails', bad: frame(textCompletion(['Hi']).slice(1)), good: frame(text) },
  { id: 'CHAT-STREAM-015', rule: 'role-repeated', title: 'a role repeated on later deltas is non-strict', bad: frame(replace(text, 1, chunk({ role: 'assistant', content: 'Hel' }))), good: frame(text), severity: 'non-strict' },
  { id: 'CHAT-STREAM-016', rule: 'delta-invalid', title: 'non-string delta content fails', bad: frame(replace(text, 1, chunk({ content: 42 }))), good: frame(text) },
  { id: 'CHAT-STREAM-017', rule: 'finish-reason-invalid', title: 'an empty-string finish_reason fails', bad: frame(replace(text, 1, chunk({ content: 'Hel' }, { finish: '' }))), good: frame(text) },
  { id: 'CHAT-STREAM-045', rule: 'finish-reason-unknown', title: 'an unknown non-empty finish_reason fails (openai-dotnet throws Unknown ChatFinishReason value)', bad: frame(replace(text, 3, chunk({}, { finish: 'eos' }))), good: frame(text) },
  { id: 'CHAT-STREAM-018', rule: 'finish-reason-key-missing', title: 'a missing finish_reason key on interim chunks is non-strict', bad: frame(text.map((c, i) => (i === 3 ? c : { ...c, choices: [{ index: 0, delta: (c['choices'] as { delta: object }[])[0]?.delta }] }))), good: frame(text), severity: 'non-strict' },
  { id: 'CHAT-STREAM-019', rule: 'finish-reason-count', title: 'a choice that never finishes fails', bad: frame(text.slice(0, 3)), good: frame(text) },
  { id: 'CHAT-STREAM-020', rule: 'finish-chunk-content', title: 'a finish chunk that carries content is non-strict', bad: frame([...text.slice(0, 2), chunk({ content: 'lo' }, { finish: 'stop' })]), good: frame(text), severity: 'non-strict' },
  { id: 'CHAT-STREAM-021', rule: 'delta-after-finish', title: 'content after the finish chunk fails', bad: frame([...text, chunk({ content: '!' })]), good: frame(text) },
  { id: 'CHAT-STREAM-022', rule: 'no-chunks', title: 'a stream with only [DONE] fails', bad: frame([]), good: frame(text) },
  { id: 'CHAT-STREAM-023', rule: 'usage-chunk-missing', title: 'include_usage without a usage chunk fails', bad: frame(textCompletion(['Hi'], { usage: 'null' })), good: frame(withUsage), options: { includeUsage: true } },
  { id: 'CHAT-STREAM-023', rule: 'usage-chunk-choices', title: 'a usage chunk with choices null fails', bad: frame([...withUsage.slice(0, -1), { ...usageChunk(5, 1), choices: null }]), good: frame(withUsage), options: { includeUsage: true } },
  { id: 'CHAT-STREAM-024', rule: 'usage-chunk-not-last', title: 'a usage chunk before the finish chunk fails', bad: frame([...withUsage.slice(0, 2), usageChunk(5, 1), withUsage[2] as Event]), good: frame(withUsage), options: { includeUsage: true } },
  { id: 'CHAT-STREAM-025', rule: 'usage-non-null-interim', title: 'usage on every chunk fails (openai-go adds every chunk\'s usage to the total)', bad: frame([...withUsage.slice(0, -1).map((c) => ({ ...c, usage: { prompt_tokens: 5, completion_tokens: 0, total_tokens: 5 } })), usageChunk(5, 1)]), good: frame(withUsage), options: { includeUsage: true } },
  { id: 'CHAT-STREAM-026', rule: 'usage-null-omitted', title: 'interim chunks without usage: null are non-strict', bad: frame([...textCompletion(['Hi']), usageChunk(5, 1)]), good: frame(withUsage), options: { includeUsage: true }, severity: 'non-strict' },
  { id: 'CHAT-STREAM-027', rule: 'usage-unrequested', title: 'a usage chunk that was not requested is non-strict', bad: frame(withUsage), good: frame(text), severity: 'non-strict' },
  { id: 'CHAT-STREAM-028', rule: 'usage-chunk-envelope', title: 'a usage chunk without id and model fails (openai-go drops it, Spring AI throws)', bad: frame([...withUsage.slice(0, -1), { object: 'chat.completion.chunk', created: FIXTURE_CREATED, choices: [], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } }]), good: frame(withUsage), options: { includeUsage: true }, severity: 'fail' },
  { id: 'CHAT-STREAM-029', rule: 'usage-counts', title: 'total_tokens other than the sum fails', bad: frame([...withUsage.slice(0, -1), { ...usageChunk(5, 1), usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 7 } }]), good: frame(withUsage), options: { includeUsage: true } },
  { id: 'CHAT-STREAM-030', rule: 'error-before-chunks', title: 'an error inside a 200 stream before any chunk is non-strict', bad: frame([{ error: { message: 'boom', type: 'server_error', param: null, code: null } }]), good: frame(text), severity: 'non-strict' },
  { id: 'CHAT-STREAM-031', rule: 'error-shape', title: 'an in-stream error with an integer code fails', bad: frame([...text.slice(0, 2), { error: { message: 'boom', type: 'server_error', param: null, code: 500 } }], { done: false }), good: frame([...text.slice(0, 2), { error: { message: 'boom', type: 'server_error', param: null, code: 'overloaded' } }], { done: false }) + 'data: [DONE]\n\n' },
  { id: 'CHAT-STREAM-031', rule: 'chunk-after-error', title: 'chunks after an in-stream error fail', bad: frame([...text.slice(0, 2), { error: { message: 'boom', type: 'server_error', param: null, code: null } }, ...text.slice(2)]), good: frame([...text.slice(0, 2), { error: { message: 'boom', type: 'server_error', param: null, code: null } }]) },
  { id: 'CHAT-STREAM-033', rule: 'meta-only-event', title: 'an event with only id and retry fails (openai-python parses its empty data)', bad: frame(text).replace('data: [DONE]', 'id: 9\nretry: 100\n\ndata: [DONE]'), good: frame(text), severity: 'fail' },
  { id: 'CHAT-STREAM-037', rule: 'event-field', title: 'chunks in named events are non-strict', bad: frame(text).replace(/data: \{/g, 'event: delta\ndata: {'), good: frame(text), severity: 'non-strict' },
  { id: 'CHAT-STREAM-042', rule: 'ignored-field', title: 'an unknown field is ignored and recorded as informational', bad: frame(text).replace('data: [DONE]', 'x-trace: 1\ndata: [DONE]'), good: frame(text), severity: 'informational' },
  { id: 'CHAT-STREAM-042', rule: 'ignored-field', title: 'a retry that is not all digits is ignored and recorded as informational', bad: frame(text).replace('data: [DONE]', 'retry: 1.5\ndata: [DONE]'), good: frame(text).replace('data: [DONE]', 'retry: 15\ndata: [DONE]'), severity: 'informational' },
  { id: 'CHAT-STREAM-042', rule: 'ignored-field', title: 'an id containing NUL is ignored and recorded as informational', bad: frame(text).replace('data: [DONE]', 'id: a\u0000b\ndata: [DONE]'), good: frame(text).replace('data: [DONE]', 'id: ab\ndata: [DONE]'), severity: 'informational' },
  { id: 'CHAT-STREAM-043', rule: 'bom', title: 'a leading byte order mark is stripped to judge the rest, and fails (openai-python loses the first event)', bad: frame(text, { bom: true }), good: frame(text), severity: 'fail' },
  { id: 'CHAT-STREAM-039', rule: 'choice-missing', title: 'with n=2 a choice that never streams is non-strict', bad: frame(text), good: frame([...textCompletion(['a']), ...textCompletion(['b'], { index: 1 })]), options: { n: 2 }, severity: 'non-strict' },
  { id: 'TOOLS-008', rule: 'tool-calls-finish-without-calls', title: 'finish_reason tool_calls without any call is non-strict', bad: frame(textCompletion(['Hi'], { finish: 'tool_calls' })), good: frame(toolCall), severity: 'non-strict' },
  { id: 'TOOLS-022', rule: 'tool-calls-with-stop', title: 'streamed tool calls finishing with stop are informational (OpenAI sends it)', bad: frame(replace(toolCall, 4, chunk({}, { finish: 'stop' }))), good: frame(toolCall), severity: 'informational' },
  { id: 'TOOLS-012', rule: 'tool-index-invalid', title: 'a tool-call delta without index fails', bad: frame(replace(toolCall, 2, chunk({ tool_calls: [{ function: { arguments: '{"city":' } }] }))), good: frame(toolCall) },
  { id: 'TOOLS-013', rule: 'tool-first-delta-incomplete', title: 'a first tool-call delta without id fails', bad: frame(replace(toolCall, 1, chunk({ tool_calls: [{ index: 0, type: 'function', function: { name: 'get_weather', arguments: '' } }] }))), good: frame(toolCall) },
  { id: 'TOOLS-014', rule: 'tool-identity-changed', title: 'a later delta that changes the tool call id fails', bad: frame(replace(toolCall, 3, chunk({ tool_calls: [{ index: 0, id: 'call_2', function: { arguments: '"Paris"}' } }] }))), good: frame(toolCall) },
  { id: 'TOOLS-014', rule: 'tool-identity-changed', title: 'a later delta that repeats the tool name unchanged fails (pydantic-ai and LangChain concatenate it)', bad: frame(replace(toolCall, 3, chunk({ tool_calls: [{ index: 0, function: { name: 'get_weather', arguments: '"Paris"}' } }] }))), good: frame(toolCall) },
  { id: 'TOOLS-014', rule: 'tool-identity-changed', title: 'a later delta that repeats the tool call id unchanged fails (openai-python concatenates it)', bad: frame(replace(toolCall, 3, chunk({ tool_calls: [{ index: 0, id: 'call_1', function: { arguments: '"Paris"}' } }] }))), good: frame(replace(toolCall, 3, chunk({ tool_calls: [{ index: 0, id: '', function: { name: null, arguments: '"Paris"}' } }] }))) },
  { id: 'TOOLS-015', rule: 'tool-arguments-not-string', title: 'arguments sent as an object fail', bad: frame([...toolCall.slice(0, 2), chunk({ tool_calls: [{ index: 0, function: { arguments: { city: 'Paris' } } }] }), toolCall[4] as Event]), good: frame(toolCall) },
  { id: 'TOOLS-016', rule: 'tool-index-gap', title: 'a tool-call index that skips fails', bad: frame(replace(toolCall, 1, chunk({ tool_calls: [toolStart(0, 'call_1', 'get_weather'), toolStart(2, 'call_3', 'get_time', '{}')] }))), good: frame(replace(toolCall, 1, chunk({ tool_calls: [toolStart(0, 'call_1', 'get_weather'), toolStart(1, 'call_2', 'get_time', '{}')] }))) },
  { id: 'TOOLS-017', rule: 'tool-arguments-not-json', title: 'joined arguments that are not JSON are recorded as informational', bad: frame(replace(toolCall, 3, chunk({ tool_calls: [toolArgs(0, '"Par')] }))), good: frame(toolCall), severity: 'informational' },
];

describe('StreamChecker rules', () => {
  for (const c of cases) {
    it(`${c.id}: ${c.title}`, () => {
      const bad = run(c.bad, c.options);
      const hit = bad.findings.filter((f) => f.rule === c.rule);
      expect(hit.length, JSON.stringify(bad.findings, null, 1)).toBeGreaterThan(0);
      expect(hit[0] === undefined ? undefined : idOf(hit[0])).toBe(c.id);
      expect(hit[0] === undefined ? undefined : severityOf(hit[0])).toBe(c.severity ?? 'fail');
      expect(hit[0]?.byteOffset).toBeGreaterThanOrEqual(0);
      if ((c.severity ?? 'fail') !== 'informational') expect(graded(bad), JSON.stringify(bad.findings, null, 1)).toEqual([c.id]);
      const good = run(c.good, c.options);
      expect(good.findings.filter((f) => severityOf(f) !== 'informational' || f.rule === c.rule), JSON.stringify(good.findings, null, 1)).toEqual([]);
    });
  }

  it('CHAT-STREAM-041: points the invalid-UTF-8 finding at the bad byte', () => {
    const head = enc.encode('data: {"a":"');
    const bytes = Uint8Array.from([...head, 0xc3, 0x28, ...enc.encode('"}\n\n')]);
    const f = run(bytes).findings.find((x) => x.rule === 'invalid-utf8');
    expect(f?.byteOffset).toBe(head.length);
  });

  it('CHAT-STREAM-008: reports the byte offset and read index of the chunk whose id changed', () => {
    const s = frame(replace(text, 2, chunk({ content: 'lo' }, { envelope: { id: 'chatcmpl-other' } })));
    const bytes = enc.encode(s);
    const cut = s.indexOf('chatcmpl-other');
    const v = new StreamValidator(base);
    v.feed(bytes.subarray(0, cut), 1n);
    v.feed(bytes.subarray(cut), 2n);
    const f = v.end().findings.find((x) => x.rule === 'id-changed');
    expect(f?.byteOffset).toBe(s.indexOf('data: {"id":"chatcmpl-other"'));
    expect(f?.chunkIndex).toBe(1);
    expect(f?.pointer).toBe('/id');
    expect(f).toMatchObject({ expected: 'chatcmpl-fixture0001', received: 'chatcmpl-other' });
  });

  it('keeps at most maxFindingsPerRule findings per rule and counts the rest', () => {
    const many = frame(Array.from({ length: 10 }, () => 'not json'));
    const r = run(many, { maxFindingsPerRule: 3 });
    expect(r.findings.filter((f) => f.rule === 'non-json-data')).toHaveLength(3);
    expect(r.suppressed['non-json-data']).toBe(7);
  });

  it('grades a conforming stream pass and records legal variants as informational', () => {
    const r = run(frame(text, { eol: '\r\n', noSpace: true, comment: ' ping' }));
    expect(verdictOf(r)).toBe('pass');
    expect(r.findings.map(idOf).sort()).toEqual(['CHAT-STREAM-032', 'CHAT-STREAM-034', 'CHAT-STREAM-036']);
  });

  it('CHAT-STREAM-043: a leading byte order mark fails, and the stream behind it is still read whole', () => {
    const r = run(frame(text, { eol: '\r\n', bom: true, noSpace: true, comment: ' ping' }));
    expect(verdictOf(r)).toBe('fail');
    expect(r.findings.map(idOf).sort()).toEqual(['CHAT-STREAM-032', 'CHAT-STREAM-034', 'CHAT-STREAM-036', 'CHAT-STREAM-043']);
    expect(r.assembled).toEqual(run(frame(text)).assembled);
  });
});

describe('JSON nesting, scanned once', () => {
  const deep = frame([...textCompletion(['Hi']).slice(0, 1), { ...defaultEnvelope, choices: [{ index: 0, delta: { content: 'x' }, finish_reason: null }], extra: JSON.parse('['.repeat(70) + ']'.repeat(70)) as unknown }, ...textCompletion(['Hi']).slice(1)]);

  it('HDR-015: reports an event nested deeper than 64 levels as json-too-deep, unparsed', () => {
    expect(run(deep).findings.map((f) => f.rule)).toContain('json-too-deep');
  });

  it('HDR-015: with jsonDepthChecked the caller has bounded the nesting (load: event-bounds.ts) and the checker does not scan it again', () => {
    expect(run(deep, { jsonDepthChecked: true }).findings.map((f) => f.rule)).not.toContain('json-too-deep');
  });
});

describe('stream assembly', () => {
  it('joins content per choice and exposes it in the non-streaming message shape', () => {
    const r = run(frame([...textCompletion(['Hel', 'lo'], { usage: 'null' }), usageChunk(3, 2)]), { includeUsage: true });
    expect(r.assembled).toMatchObject({ id: 'chatcmpl-fixture0001', model: 'iari-echo-1', created: FIXTURE_CREATED, done: true, chunks: 5 });
    expect(r.assembled.usage).toEqual({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });
    const [choice] = r.assembled.choices;
    expect(choice).toMatchObject({ index: 0, role: 'assistant', content: 'Hello', finishReason: 'stop' });
    expect(toMessage(choice!)).toEqual({ role: 'assistant', content: 'Hello', refusal: null });
  });

  it('joins tool-call arguments in order, per call, across parallel calls', () => {
    const r = run(
      frame([
        chunk({ role: 'assistant', content: null }),
        chunk({ tool_calls: [toolStart(0, 'call_a', 'f', '{"x"'), toolStart(1, 'call_b', 'g', '')] }),
        chunk({ tool_calls: [toolArgs(1, '{"y":2}')] }),
        chunk({ tool_calls: [toolArgs(0, ':1}')] }),
        chunk({}, { finish: 'tool_calls' }),
      ]),
    );
    expect(verdictOf(r)).toBe('pass');
    expect(toMessage(r.assembled.choices[0]!)).toEqual({
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'f', arguments: '{"x":1}' } },
        { id: 'call_b', type: 'function', function: { name: 'g', arguments: '{"y":2}' } },
      ],
    });
  });

  it('assembles n>1 choices interleaved, sorted by index', () => {
    const a = textCompletion(['a1', 'a2']);
    const b = textCompletion(['b1', 'b2'], { index: 1 });
    const interleaved = a.flatMap((c, i) => [c, b[i] as Event]);
    const r = run(frame(interleaved), { n: 2 });
    expect(verdictOf(r)).toBe('pass');
    expect(r.assembled.choices.map((c) => c.content)).toEqual(['a1a2', 'b1b2']);
  });

  it('records an in-stream error payload', () => {
    const err = { message: 'overloaded', type: 'server_error', param: null, code: 'overloaded' };
    const r = run(frame([...text.slice(0, 2), { error: err }]));
    expect(r.assembled.error).toEqual(err);
  });
});

describe('stream timing facts', () => {
  it('anchors the first token on the first content-bearing event, not the role prelude', () => {
    const events = textCompletion(['Hel', 'lo']);
    const v = new StreamValidator(base);
    events.forEach((e, i) => v.feed(enc.encode(frame([e], { done: false })), BigInt(100 + i)));
    v.feed(enc.encode('data: [DONE]\n\n'), 200n);
    const r = v.end();
    expect(r.timing.firstChunkAt).toBe(100n);
    expect(r.timing.firstTokenAt).toBe(101n);
    expect(r.timing.doneAt).toBe(200n);
    expect(r.timing.contentEvents.map((e) => [e.arrivedAt, e.chars, e.tokens])).toEqual([
      [101n, 3, undefined],
      [102n, 2, undefined],
    ]);
  });

  it('counts tokens per content event with gpt-tokenizer when asked', async () => {
    const count = await loadGptTokenCounter();
    const r = run(frame(textCompletion(['Hello world, this is', ' a test'])), { countTokens: count });
    const tokens = r.timing.contentEvents.map((e) => e.tokens);
    expect(tokens).toEqual([count('Hello world, this is'), count(' a test')]);
    expect(tokens[0]).toBeGreaterThan(1);
  });

  it('treats a tool-call delta as the first token', () => {
    const r = run(frame(toolCall));
    expect(r.timing.firstTokenAt).toBe(0n);
    expect(r.timing.contentEvents).toHaveLength(3);
  });
});

describe('StreamChecker on arbitrary payloads', () => {
  it('never throws and always gives a verdict, whatever JSON the events carry (property)', () => {
    const payload = fc.oneof(
      fc.anything(),
      fc.record({ id: fc.anything(), object: fc.anything(), created: fc.anything(), model: fc.anything(), usage: fc.anything(), choices: fc.array(fc.record({ index: fc.anything(), delta: fc.oneof(fc.anything(), fc.record({ role: fc.anything(), content: fc.anything(), tool_calls: fc.array(fc.record({ index: fc.anything(), id: fc.anything(), type: fc.anything(), function: fc.anything() }, { requiredKeys: [] })) }, { requiredKeys: [] })), finish_reason: fc.anything() }, { requiredKeys: [] })) }, { requiredKeys: [] }),
    );
    fc.assert(
      fc.property(fc.array(payload, { maxLength: 8 }), fc.boolean(), fc.integer({ min: 1, max: 3 }), (events, includeUsage, n) => {
        const data = events.map((e) => JSON.stringify(e) ?? 'undefined');
        const r = run(frame(data), { includeUsage, n });
        expect(['pass', 'fail', 'non-strict']).toContain(verdictOf(r));
        for (const f of r.findings) expect(idOf(f)).toMatch(/^(CHAT-STREAM|TOOLS)-\d{3}$/);
      }),
      { numRuns: 300 },
    );
  });
});
