import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkResponsesStream, type ResponsesStreamResult } from './responses-stream.ts';
import { finalResponse, sseFrame, streamEvents, type PlannedItem, type PlannedResponse } from './responses-writer.ts';
import type { ResponsesRuleCode } from './responses-rules.ts';
import type { Json } from './responses-body.ts';

const enc = new TextEncoder();

function plan(items: PlannedItem[], over: Partial<PlannedResponse> = {}): PlannedResponse {
  const out = items.reduce((n, i) => n + i.pieces.length, 0);
  return {
    base: { id: 'resp_1', object: 'response', created_at: 1_790_000_000, model: 'm', metadata: {}, tools: [] },
    items,
    status: 'completed',
    usage: { input_tokens: 9, output_tokens: out, total_tokens: 9 + out },
    completedAt: 1_790_000_001,
    ...over,
  };
}

const message: PlannedItem = { kind: 'message', id: 'msg_1', pieces: ['Hel', 'lo', ' wor', 'ld'] };
const call: PlannedItem = { kind: 'function_call', id: 'fc_1', callId: 'call_1', name: 'get_weather', pieces: ['{"city":', '"Paris"}'] };
const events = (p: PlannedResponse): Json[] => streamEvents(p).map((w) => w.event);
const wire = (list: readonly Json[]): string => list.map(sseFrame).join('');

function rules(r: ResponsesStreamResult): ResponsesRuleCode[] {
  return [...new Set(r.findings.map((f) => f.rule))].sort();
}
const check = (s: string | Uint8Array): ResponsesStreamResult => checkResponsesStream(typeof s === 'string' ? enc.encode(s) : s);

/** A stream mutated: `edit` gets the events (sequence numbers already set) and returns those to send. */
function mutated(p: PlannedResponse, edit: (list: Json[]) => Json[]): string {
  return wire(edit(events(p).map((e) => structuredClone(e))));
}
const renumber = (list: Json[]): Json[] => list.map((e, i) => ({ ...e, sequence_number: i }));
const findType = (list: Json[], type: string, from = 0): number => list.findIndex((e, i) => i >= from && e['type'] === type);

describe('the Responses stream as a state machine', () => {
  it('finds nothing in a stream the writer made, and keeps its facts', () => {
    const p = plan([message, call]);
    const r = check(wire(events(p)));
    expect(r.findings).toEqual([]);
    expect(r.facts.terminal).toBe('response.completed');
    expect(r.facts.text).toBe('Hello world');
    expect(r.facts.functionCalls).toEqual([{ callId: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }]);
    expect(r.facts.usage).toEqual({ inputTokens: 9, outputTokens: 6, totalTokens: 15 });
    expect(r.facts.outputEvents.map((e) => e.kind)).toEqual(['text', 'text', 'text', 'text', 'arguments', 'arguments']);
    expect(r.facts.firstOutputAt).toBe(0n);
    expect(r.facts.final?.text).toBe('Hello world');
  });

  it('reads an incomplete response as one ending in response.incomplete with its reason', () => {
    const r = check(wire(events(plan([message], { status: 'incomplete', incompleteReason: 'max_output_tokens' }))));
    expect(r.findings).toEqual([]);
    expect(r.facts.terminal).toBe('response.incomplete');
    expect(r.facts.final?.incompleteReason).toBe('max_output_tokens');
  });

  const p = plan([message, call]);
  const cases: [ResponsesRuleCode, string, string][] = [
    ['event-invalid', 'a keep-alive sent as data', wire(events(p)).replace('\n\n', '\n\ndata: : keep-alive\n\n')],
    ['created-not-first', 'a stream that begins with response.in_progress', mutated(p, (l) => renumber(l.slice(1)))],
    ['snapshot-invalid', 'response.created without an output array', mutated(p, (l) => { delete (l[0]?.['response'] as Json)['output']; return l; })],
    ['in-progress-missing', 'no response.in_progress', mutated(p, (l) => renumber(l.filter((e) => e['type'] !== 'response.in_progress')))],
    ['sequence-invalid', 'a sequence number repeated', mutated(p, (l) => l.map((e, i) => (i === 4 ? { ...e, sequence_number: 3 } : e)))],
    ['sequence-invalid', 'sequence numbers from 1', mutated(p, (l) => l.map((e) => ({ ...e, sequence_number: (e['sequence_number'] as number) + 1 })))],
    ['output-index-invalid', 'deltas at output_index + 1', mutated(p, (l) => l.map((e) => (e['type'] === 'response.output_text.delta' ? { ...e, output_index: 1 } : e)))],
    ['content-index-invalid', 'a delta at content_index 1', mutated(p, (l) => l.map((e, i) => (i === findType(l, 'response.output_text.delta') ? { ...e, content_index: 1 } : e)))],
    ['item-id-mismatch', 'deltas naming another item_id', mutated(p, (l) => l.map((e) => (e['type'] === 'response.output_text.delta' ? { ...e, item_id: 'msg_other' } : e)))],
    ['item-not-done', 'no output_item.done for the message', mutated(p, (l) => renumber(l.filter((e, i) => i !== findType(l, 'response.output_item.done'))))],
    ['part-not-done', 'no content_part.done', mutated(p, (l) => renumber(l.filter((e) => e['type'] !== 'response.content_part.done')))],
    ['text-mismatch', 'an output_text.done text without its last delta', mutated(p, (l) => l.map((e) => (e['type'] === 'response.output_text.done' ? { ...e, text: 'Hello wor' } : e)))],
    ['arguments-mismatch', 'arguments.done differing from the deltas', mutated(p, (l) => l.map((e) => (e['type'] === 'response.function_call_arguments.done' ? { ...e, arguments: '{}' } : e)))],
    ['terminal-missing', 'a stream ending after the last item', mutated(p, (l) => l.slice(0, -1))],
    ['after-terminal', 'a second response.completed', mutated(p, (l) => [...l, { ...(l[l.length - 1] as Json), sequence_number: l.length }])],
    ['terminal-output-mismatch', 'response.completed with an empty output', mutated(p, (l) => { ((l[l.length - 1] as Json)['response'] as Json)['output'] = []; return l; })],
    ['terminal-status-mismatch', 'response.completed whose response says in_progress', mutated(p, (l) => { ((l[l.length - 1] as Json)['response'] as Json)['status'] = 'in_progress'; return l; })],
    ['terminal-usage-missing', 'response.completed without usage', mutated(p, (l) => { delete ((l[l.length - 1] as Json)['response'] as Json)['usage']; return l; })],
    ['response-id-changed', 'a terminal response with another id', mutated(p, (l) => { ((l[l.length - 1] as Json)['response'] as Json)['id'] = 'resp_2'; return l; })],
    ['vendor-event', 'a vendor event type', mutated(p, (l) => renumber([...l.slice(0, 2), { type: 'response.prompt_progress', processed: 10 }, ...l.slice(2)]))],
    ['done-sentinel', 'a trailing data: [DONE]', `${wire(events(p))}data: [DONE]\n\n`],
    ['event-line-missing', 'data-only events', wire(events(p)).replace(/^event: .*\n/gm, '')],
    ['framing-invalid', 'a stream cut inside an event', wire(events(p)).slice(0, -1)],
  ];

  it.each(cases)('reports %s for %s', (rule, _what, stream) => {
    expect(rules(check(stream))).toContain(rule);
  });

  it('reports a mutation only as its own rule where the rest of the stream is sound', () => {
    const only: ResponsesRuleCode[] = ['output-index-invalid', 'content-index-invalid', 'in-progress-missing', 'sequence-invalid', 'item-id-mismatch', 'text-mismatch', 'arguments-mismatch', 'terminal-missing', 'after-terminal', 'terminal-usage-missing', 'vendor-event', 'done-sentinel', 'event-line-missing'];
    for (const [rule, what, stream] of cases.filter(([r]) => only.includes(r))) expect(rules(check(stream)), what).toEqual([rule]);
  });

  it('gives the same findings and facts however the bytes are cut into reads', () => {
    const arbItem = fc.oneof(
      fc.record({ kind: fc.constant('message' as const), id: fc.constant('msg_x'), pieces: fc.array(fc.string({ unit: 'grapheme', maxLength: 6 }), { maxLength: 6 }) }),
      fc.record({ kind: fc.constant('function_call' as const), id: fc.constant('fc_x'), callId: fc.constant('call_x'), name: fc.constant('f'), pieces: fc.array(fc.string({ maxLength: 6 }), { maxLength: 4 }) }),
    );
    fc.assert(
      fc.property(fc.array(arbItem, { maxLength: 3 }), fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 20 }), (items, cuts) => {
        const bytes = enc.encode(wire(events(plan(items.map((it, i) => ({ ...it, id: `${it.id}${i}` }))))));
        const whole = checkResponsesStream(bytes);
        // A valid generated stream passes.
        expect(whole.findings).toEqual([]);
        const reads: Uint8Array[] = [];
        let at = 0;
        for (let k = 0; at < bytes.length; k++) {
          const n = cuts[k % cuts.length] as number;
          reads.push(bytes.subarray(at, at + n));
          at += n;
        }
        const cut = checkResponsesStream(reads);
        expect(cut.findings).toEqual([]);
        expect(cut.facts.text).toBe(whole.facts.text);
        expect(cut.facts.functionCalls).toEqual(whole.facts.functionCalls);
        expect(cut.facts.outputEvents.length).toBe(whole.facts.outputEvents.length);
      }),
      { numRuns: 200 },
    );
  });

  it('never throws, and always reports something, on arbitrary events', () => {
    const anyEvent = fc.oneof(
      fc.anything(),
      fc.record({ type: fc.constantFrom('response.created', 'response.output_item.added', 'response.output_text.delta', 'response.output_item.done', 'response.completed', 'x'), sequence_number: fc.anything(), output_index: fc.anything(), content_index: fc.anything(), item_id: fc.anything(), delta: fc.anything(), item: fc.anything(), response: fc.anything() }, { requiredKeys: ['type'] }),
    );
    fc.assert(
      fc.property(fc.array(anyEvent, { maxLength: 10 }), (list) => {
        const stream = list.map((e) => `data: ${JSON.stringify(e) ?? 'null'}\n\n`).join('');
        const r = check(stream);
        // No terminal response.completed with a whole response among arbitrary events: something is always wrong.
        expect(r.findings.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps at most maxFindingsPerRule framing findings and counts the rest (fuzz finding: every framing finding of the reader was kept)', () => {
    // Three lines that are not UTF-8 and one cut event: four framing findings of the reader.
    const stream = new Uint8Array([0xff, 0x3a, 0x0a, 0xfe, 0x0a, 0xc0, 0x0a, 0x0a, ...enc.encode('data: {')]);
    const r = checkResponsesStream(stream, { maxFindingsPerRule: 2 });
    expect(r.findings.filter((f) => f.rule === 'framing-invalid')).toHaveLength(2);
    expect(r.suppressed['framing-invalid']).toBeGreaterThan(0);
    expect(r.findings.find((f) => f.rule === 'framing-invalid')?.byteOffset).toBe(0);
  });

  it('judges the terminal response against the bound and metadata of the request', () => {
    const cut = plan([message], { status: 'completed' });
    const r = checkResponsesStream(enc.encode(wire(events(cut))), { maxOutputTokens: 4, metadata: { run: 'a' } });
    expect(rules(r)).toEqual(['cut-as-completed', 'metadata-not-echoed']);
    expect(finalResponse(cut)['usage']).toEqual({ input_tokens: 9, output_tokens: 4, total_tokens: 13 });
  });
});
