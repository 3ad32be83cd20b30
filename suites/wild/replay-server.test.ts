import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import { loadCorpus, type LoadedExchange, type ReplayMatch } from './corpus.ts';
import { matches, shiftCreated, startReplayServer } from './replay-server.ts';
import { startReplayFor, startWildMock } from './wild-run.ts';

const corpus = loadCorpus();
const byId = (id: string): LoadedExchange => {
  const ex = corpus.find((e) => e.id === id);
  if (ex === undefined) throw new Error(`no exchange ${id}`);
  return ex;
};
const valid = new Set(['tok-valid']);
const listed = new Set(['m-listed']);
const req = (over: Partial<{ method: string; path: string; authorization: string | undefined; json: unknown }> = {}) => ({
  method: 'POST',
  path: '/v1/chat/completions',
  authorization: 'Bearer tok-valid',
  json: { model: 'm-listed', messages: [] },
  ...over,
});
const m = (over: Partial<ReplayMatch> = {}): ReplayMatch => ({ method: 'POST', path: '/v1/chat/completions', ...over });

describe('replay matching', () => {
  it('matches method and path, or a path pattern', () => {
    expect(matches(m(), req(), valid, listed)).toBe(true);
    expect(matches(m({ method: 'GET' }), req(), valid, listed)).toBe(false);
    expect(matches(m({ path: '/v1/models' }), req(), valid, listed)).toBe(false);
    expect(matches({ method: 'GET', pathPattern: '^/v1/me(/usage)?$' }, req({ method: 'GET', path: '/v1/me/usage' }), valid, listed)).toBe(true);
  });

  it('matches the stream flag, include_usage, tools and n from the body', () => {
    const body = { model: 'm-listed', stream: true, stream_options: { include_usage: true }, tools: [{ type: 'function' }], n: 2 };
    expect(matches(m({ stream: true, includeUsage: true, tools: true, n: 2 }), req({ json: body }), valid, listed)).toBe(true);
    expect(matches(m({ stream: false }), req({ json: body }), valid, listed)).toBe(false);
    expect(matches(m({ includeUsage: false }), req({ json: body }), valid, listed)).toBe(false);
    expect(matches(m({ tools: false }), req({ json: body }), valid, listed)).toBe(false);
    expect(matches(m({ n: 1 }), req({ json: body }), valid, listed)).toBe(false);
    expect(matches(m({ n: 1, stream: false }), req(), valid, listed)).toBe(true);
  });

  it('tells valid, invalid and missing credentials apart', () => {
    expect(matches(m({ auth: 'valid' }), req(), valid, listed)).toBe(true);
    expect(matches(m({ auth: 'invalid' }), req({ authorization: 'Bearer nope' }), valid, listed)).toBe(true);
    expect(matches(m({ auth: 'invalid' }), req({ authorization: 'Basic tok-valid' }), valid, listed)).toBe(true);
    expect(matches(m({ auth: 'none' }), req({ authorization: undefined }), valid, listed)).toBe(true);
    expect(matches(m({ auth: 'not-valid' }), req({ authorization: undefined }), valid, listed)).toBe(true);
    expect(matches(m({ auth: 'not-valid' }), req(), valid, listed)).toBe(false);
    expect(matches(m({ auth: 'none' }), req(), valid, listed)).toBe(false);
  });

  it('tells listed from unlisted models, and a missing model is neither', () => {
    expect(matches(m({ model: 'listed' }), req(), valid, listed)).toBe(true);
    expect(matches(m({ model: 'unlisted' }), req({ json: { model: 'iari-no-such-model-7' } }), valid, listed)).toBe(true);
    expect(matches(m({ model: 'unlisted' }), req({ json: { messages: [] } }), valid, listed)).toBe(false);
    expect(matches(m({ model: 'listed' }), req({ json: { model: 'iari-no-such-model-7' } }), valid, listed)).toBe(false);
  });

  it('matches members the body carries or lacks, and never a body that is not a JSON object', () => {
    expect(matches(m({ bodyIncludes: { stream_options: {} } }), req({ json: { stream_options: {} } }), valid, listed)).toBe(true);
    expect(matches(m({ bodyIncludes: { stream_options: {} } }), req({ json: { stream_options: { include_usage: false } } }), valid, listed)).toBe(false);
    expect(matches(m({ bodyLacks: ['messages'] }), req({ json: { model: 'x' } }), valid, listed)).toBe(true);
    expect(matches(m({ bodyLacks: ['messages'] }), req(), valid, listed)).toBe(false);
    expect(matches(m({ bodyLacks: ['messages'] }), req({ json: undefined }), valid, listed)).toBe(false);
  });
});

describe('created shifting', () => {
  it('moves every created by one offset so the first is now, keeping the rest of the bytes', () => {
    const text = 'data: {"id":"a","created":1700000000,"x":1}\n\ndata: {"created": 1700000005}\n\n';
    expect(shiftCreated(text, 1800000000)).toBe('data: {"id":"a","created":1800000000,"x":1}\n\ndata: {"created": 1800000005}\n\n');
    expect(shiftCreated('{"no":"created"}', 5)).toBe('{"no":"created"}');
  });
});

describe('replay server', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startWildMock();
  });
  afterAll(async () => {
    await mock?.close();
  });

  it('serves the recorded stream bytes on its route and forwards everything else to the mock', async () => {
    const ex = byId('vllm-stream-error-event-on-200');
    expect(ex.replay.shiftCreated).toBeUndefined();
    const replay = await startReplayFor(mock, [ex]);
    try {
      const model = mock.admin.models().available[0];
      const headers = { authorization: `Bearer ${mock.tokens.default}`, 'content-type': 'application/json' };
      const streamed = await request(`${replay.origin}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], stream: true }) });
      expect(streamed.statusCode).toBe(200);
      expect(streamed.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(Buffer.from(await streamed.body.arrayBuffer()).equals(Buffer.from(ex.bodyBytes))).toBe(true);
      const whole = await request(`${replay.origin}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }) });
      const json = (await whole.body.json()) as { object?: string };
      expect(whole.statusCode).toBe(200);
      expect(json.object).toBe('chat.completion');
      const models = await request(`${replay.origin}/v1/models`);
      expect(((await models.body.json()) as { data: { id: string }[] }).data.map((d) => d.id)).toEqual(mock.admin.models().available);
      expect(replay.served(ex.id)).toBe(1);
      expect(replay.log).toEqual([{ method: 'POST', path: '/v1/chat/completions', id: ex.id }]);
    } finally {
      await replay.close();
    }
  });

  it('serves a recording only `times` times, then forwards', async () => {
    const ex: LoadedExchange = { ...byId('openai-models-list'), replay: { match: { method: 'GET', path: '/v1/models' }, times: 1 } };
    const replay = await startReplayFor(mock, [ex]);
    try {
      const first = (await (await request(`${replay.origin}/v1/models`)).body.json()) as { data: { id: string }[] };
      const second = (await (await request(`${replay.origin}/v1/models`)).body.json()) as { data: { id: string }[] };
      expect(first.data.map((d) => d.id)).toEqual(['model-id-0', 'model-id-1', 'model-id-2']);
      expect(second.data.map((d) => d.id)).toEqual(mock.admin.models().available);
    } finally {
      await replay.close();
    }
  });

  it('sends the recorded status and headers of a JSON exchange, with its own content-length', async () => {
    const ex = byId('openai-completion-ratelimit-headers');
    const replay = await startReplayFor(mock, [ex]);
    try {
      const model = mock.admin.models().available[0];
      const res = await request(`${replay.origin}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${mock.tokens.default}`, 'content-type': 'application/json' }, body: JSON.stringify({ model, messages: [] }) });
      const text = await res.body.text();
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-reset-tokens']).toBe('6m0s');
      expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(text));
      // shiftCreated: the recording's 2025 timestamp is moved to now.
      expect(Math.abs((JSON.parse(text) as { created: number }).created - Date.now() / 1000)).toBeLessThan(60);
    } finally {
      await replay.close();
    }
  });

  it('refuses an upstream that is not a loopback address and a request body over its cap', async () => {
    await expect(startReplayServer({ exchanges: [], upstream: 'http://192.0.2.1:80', validTokens: [], listedModels: [] })).rejects.toThrow(/loopback/);
    const replay = await startReplayServer({ exchanges: [], upstream: mock.origin, validTokens: [], listedModels: [], maxBodyBytes: 1024 });
    try {
      const res = await request(`${replay.origin}/v1/chat/completions`, { method: 'POST', body: 'x'.repeat(4096) }).catch((e: unknown) => e);
      // Either the 413 arrives or the socket is cut after it: never a forwarded request.
      if (!(res instanceof Error)) expect((res as { statusCode: number }).statusCode).toBe(413);
    } finally {
      await replay.close();
    }
  });
});
