import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { finalResponse, sseFrame, streamEvents, type PlannedResponse } from './responses-writer.ts';
import { checkResponsesStream } from './responses-stream.ts';
import type { Json } from './responses-body.ts';

// openai-node, the reference client, as the outside oracle of what each stream rule means to a
// caller: the grades of RESP-STREAM (spec/requirements.yaml) cite what is observed here. The
// client is given a fetch that answers with the stream: no socket, no other host.

const plan: PlannedResponse = {
  base: { id: 'resp_1', object: 'response', created_at: 1_790_000_000, model: 'm', metadata: {}, tools: [], parallel_tool_calls: true, temperature: null, top_p: null, tool_choice: 'auto', error: null, instructions: null },
  items: [{ kind: 'message', id: 'msg_1', pieces: ['Hel', 'lo'] }],
  status: 'completed',
  usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
  completedAt: 1_790_000_001,
};
const events = (): Json[] => streamEvents(plan).map((w) => structuredClone(w.event));
const wire = (list: readonly Json[]): string => list.map(sseFrame).join('');

function client(body: string): OpenAI {
  const fetch = async (): Promise<Response> => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  return new OpenAI({ apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1', fetch, maxRetries: 0, logLevel: 'off' });
}

async function finalOf(body: string): Promise<{ ok: true; text: string; status: string | undefined; usage?: unknown } | { ok: false; error: string }> {
  try {
    const r = await client(body).responses.stream({ model: 'm', input: 'hi' }).finalResponse();
    return { ok: true, text: r.output_text, status: r.status, ...(r.status === 'in_progress' ? { usage: r.usage } : {}) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

async function iterated(body: string): Promise<string[]> {
  const stream = await client(body).responses.create({ model: 'm', input: 'hi', stream: true });
  const types: string[] = [];
  for await (const e of stream) types.push(e.type);
  return types;
}

describe('openai-node 7 reading Responses streams', () => {
  it('reads the writer\'s stream: streamed create yields every event, stream().finalResponse() the whole answer', async () => {
    expect(checkResponsesStream(new TextEncoder().encode(wire(events()))).findings).toEqual([]);
    expect(await iterated(wire(events()))).toEqual(events().map((e) => e['type']));
    expect(await finalOf(wire(events()))).toEqual({ ok: true, text: 'Hello', status: 'completed' });
  });

  it('RESP-STREAM-014: a trailing data: [DONE] is skipped (OpenAI sends none; clients survive it)', async () => {
    expect(await finalOf(`${wire(events())}data: [DONE]\n\n`)).toEqual({ ok: true, text: 'Hello', status: 'completed' });
  });

  it('RESP-STREAM-013: a vendor event type makes responses.stream() throw, where streamed create passes it on', async () => {
    const list = events();
    list.splice(2, 0, { type: 'response.prompt_progress', sequence_number: 2 });
    const body = wire(list);
    expect(await finalOf(body)).toEqual({ ok: false, error: expect.stringMatching(/Unhandled response stream event/) });
    expect(await iterated(body)).toContain('response.prompt_progress');
  });

  it('RESP-STREAM-002: a stream not opened by response.created makes responses.stream() throw', async () => {
    expect(await finalOf(wire(events().slice(1)))).toEqual({ ok: false, error: expect.stringMatching(/expected 'response.created' event/) });
  });

  it('RESP-STREAM-005: a delta at an output_index no item was added at makes responses.stream() throw', async () => {
    const list = events().map((e) => (e['type'] === 'response.output_text.delta' ? { ...e, output_index: 1 } : e));
    expect(await finalOf(wire(list))).toEqual({ ok: false, error: expect.stringMatching(/missing output at index 1/) });
  });

  it('RESP-STREAM-009: a stream cut before its terminal event resolves finalResponse() with the in-progress snapshot: no error, no usage (the cut is hidden)', async () => {
    expect(await finalOf(wire(events().slice(0, -1)))).toEqual({ ok: true, text: 'Hello', status: 'in_progress', usage: null });
  });

  it('RESP-STREAM-011: a terminal response with an empty output gives finalResponse() no text, whatever was streamed (wrong data)', async () => {
    const list = events();
    ((list[list.length - 1] as Json)['response'] as Json)['output'] = [];
    expect(await finalOf(wire(list))).toEqual({ ok: true, text: '', status: 'completed' });
  });

  it('RESP-STREAM-008: done text that differs from the deltas: the caller shown "Hello" is handed another text (wrong data)', async () => {
    const list = events();
    ((list[list.length - 1] as Json)['response'] as Json)['output'] = [{ ...((finalResponse(plan)['output'] as Json[])[0] as Json), content: [{ type: 'output_text', text: 'Hel', annotations: [] }] }];
    expect(await finalOf(wire(list))).toEqual({ ok: true, text: 'Hel', status: 'completed' });
  });

  it('RESP-STREAM-004: sequence numbers are not read by a fresh stream (clients survive)', async () => {
    const list = events().map((e) => ({ ...e, sequence_number: 7 }));
    expect(await finalOf(wire(list))).toEqual({ ok: true, text: 'Hello', status: 'completed' });
  });

  it('RESP-STREAM-006: an item_id unlike the item at its output_index makes openai-node 7\'s responses.stream() throw', async () => {
    const list = events().map((e) => ({ ...e, ...('item_id' in e ? { item_id: 'other' } : {}) }));
    expect(await finalOf(wire(list))).toEqual({ ok: false, error: "expected item_id 'msg_1', got 'other'" });
  });

  it('RESP-STREAM-001: an event whose data is not JSON makes both reads throw', async () => {
    const body = wire(events()).replace('\n\n', '\n\ndata: : keep-alive\n\n');
    expect(await finalOf(body)).toEqual({ ok: false, error: expect.stringMatching(/JSON/) });
  });
});
