import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer } from './index.ts';
import { createMockHandlers } from './msw.ts';

// A small fetch-based client of the interface, as a client developer would write one.
interface Observation {
  step: string;
  status: number;
  headers: Record<string, string | null>;
  body: unknown;
}

const TOKEN = 'sk-iari-msw-parity-token-0001';
const SEED = 7;

function normalize(text: string): string {
  return text
    .replace(/chatcmpl-[A-Za-z0-9_-]+/g, 'chatcmpl-<id>')
    .replace(/call_[A-Za-z0-9_-]+/g, 'call_<id>')
    .replace(/"created":\s*\d+/g, '"created":0')
    .replace(/req_[0-9a-f]+/g, 'req_<id>')
    .replace(/rcpt_[0-9a-f-]+/g, 'rcpt_<id>')
    .replace(/"iat":\s*\d+/g, '"iat":0')
    .replace(/"val":"[A-Za-z0-9_-]{86}"/g, '"val":"<sig>"');
}

/** Digests of whole Receipts cover ids, times and signatures, so they differ run to run; keep their shape. */
function normalizeDigests(text: string): string {
  return text.replace(/"(prev|gate|head)":"sha256:[0-9a-f]{64}"/g, '"$1":"sha256:<digest>"');
}

async function observe(step: string, response: Response): Promise<Observation> {
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  let body: unknown = normalizeDigests(normalize(text));
  if (type.startsWith('application/json')) body = JSON.parse(body as string);
  else if (type.startsWith('text/event-stream')) body = (body as string).split('\n\n').filter((e) => e.length > 0);
  return {
    step,
    status: response.status,
    headers: {
      'content-type': response.headers.get('content-type'),
      'x-request-id': response.headers.get('x-request-id') === null ? null : normalize(response.headers.get('x-request-id') as string),
      'www-authenticate': response.headers.get('www-authenticate'),
      'retry-after': response.headers.get('retry-after'),
      'x-receipt-gate': response.headers.get('x-receipt-gate')?.replace(/[0-9a-f]{64}/, '<digest>') ?? null,
    },
    body,
  };
}

async function runClient(base: string): Promise<Observation[]> {
  const auth = { authorization: `Bearer ${TOKEN}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const out: Observation[] = [];
  const models = await fetch(`${base}/models`);
  const list = (await models.clone().json()) as { data: { id: string }[] };
  out.push(await observe('models', models));
  const model = list.data[0]?.id ?? 'missing';
  out.push(await observe('model', await fetch(`${base}/models/${encodeURIComponent(model)}`)));
  out.push(await observe('model-unknown', await fetch(`${base}/models/no-such-model`, { headers: auth })));
  out.push(await observe('me', await fetch(`${base}/me`, { headers: auth })));
  const chat = (extra: Record<string, unknown>, headers: Record<string, string> = {}) =>
    fetch(`${base}/chat/completions`, {
      method: 'POST',
      headers: { ...json, ...headers },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Say hello in two languages.' }], ...extra }),
    });
  out.push(await observe('chat', await chat({})));
  out.push(await observe('stream', await chat({ stream: true, stream_options: { include_usage: true } })));
  out.push(await observe('unknown-model', await chat({ model: 'no-such-model' })));
  out.push(await observe('no-token', await fetch(`${base}/me`)));
  out.push(await observe('fault-header', await chat({ stream: true }, { 'x-iari-fault': 'stream-no-done' })));
  out.push(await observe('legal-framing', await chat({ stream: true }, { 'x-iari-fault': 'legal-crlf,legal-comments' })));
  out.push(await observe('legal-split-utf8', await chat({ stream: true }, { 'x-iari-fault': 'legal-split-utf8' })));
  out.push(await observe('usage', await fetch(`${base}/me/usage?days=2`, { headers: auth })));
  out.push(await observe('usage-bad-days', await fetch(`${base}/me/usage?days=0`, { headers: auth })));
  out.push(await observe('receipts', await fetch(`${base}/receipts`, { headers: auth })));
  out.push(await observe('receipt-keys', await fetch(`${base}/receipts/keys`)));
  const schema = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'array', items: { type: 'integer', minimum: 1, maximum: 7 } } }, required: ['city', 'days'], additionalProperties: false };
  const asJson = { messages: [{ role: 'user', content: 'Answer in JSON.' }] };
  out.push(await observe('json-object', await chat({ ...asJson, response_format: { type: 'json_object' } })));
  out.push(await observe('json-schema', await chat({ ...asJson, response_format: { type: 'json_schema', json_schema: { name: 'plan', schema, strict: true } } })));
  out.push(await observe('json-schema-stream', await chat({ ...asJson, stream: true, response_format: { type: 'json_schema', json_schema: { name: 'plan', schema, strict: true } } })));
  out.push(await observe('json-schema-refused', await chat({ ...asJson, response_format: { type: 'json_schema', json_schema: { name: 'plan', schema: { type: 'object', properties: {} }, strict: true } } })));
  return out;
}

describe('msw handlers and the socket server share one core', () => {
  let viaSocket: Observation[];
  let viaMsw: Observation[];

  beforeAll(async () => {
    const server = await startMockServer({ seed: SEED, defaultToken: TOKEN, limits: false });
    try {
      viaSocket = await runClient(server.url);
    } finally {
      await server.close();
    }
    const mock = createMockHandlers({ seed: SEED, defaultToken: TOKEN, limits: false, baseUrl: 'https://iari-mock.test/v1' });
    const msw = setupServer(...mock.handlers);
    msw.listen({ onUnhandledFrame: 'error' });
    try {
      viaMsw = await runClient('https://iari-mock.test/v1');
    } finally {
      msw.close();
      mock.close();
    }
  });

  it('answers every step of a fetch client identically through msw and through the socket', () => {
    expect(viaMsw.map((o) => o.step)).toEqual(viaSocket.map((o) => o.step));
    for (let i = 0; i < viaSocket.length; i++) expect(viaMsw[i], viaSocket[i]?.step).toEqual(viaSocket[i]);
  });

  it('gives real answers, not two copies of the same error', () => {
    const byStep = new Map(viaMsw.map((o) => [o.step, o]));
    expect(byStep.get('models')?.status).toBe(200);
    expect(byStep.get('chat')?.status).toBe(200);
    expect(byStep.get('stream')?.headers['content-type']).toMatch(/^text\/event-stream/);
    const events = byStep.get('stream')?.body as string[];
    expect(events.at(-1)).toBe('data: [DONE]');
    expect(byStep.get('unknown-model')?.status).toBe(404);
    expect(byStep.get('model')?.status).toBe(200);
    expect(byStep.get('model-unknown')?.status).toBe(404);
    expect(byStep.get('json-schema-refused')?.status).toBe(400);
    const structured = byStep.get('json-schema')?.body as { choices: { message: { content: string } }[] };
    expect(Object.keys(JSON.parse(structured.choices[0]?.message.content ?? '{}') as object).sort()).toEqual(['city', 'days']);
    expect(byStep.get('no-token')?.status).toBe(401);
    expect(byStep.get('no-token')?.headers['www-authenticate']).toMatch(/^Bearer/);
    expect((byStep.get('fault-header')?.body as string[]).at(-1)).not.toBe('data: [DONE]');
    expect(byStep.get('usage-bad-days')?.status).toBe(400);
    const receipts = byStep.get('receipts')?.body as { data: unknown[] };
    expect(((byStep.get('legal-framing')?.body as string[])[0] ?? '')).toContain('\r\n');
    // chat, stream, the faulted stream and the two legal framings: five gates and five outcomes.
    expect(receipts.data).toHaveLength(10);
  });

  it('stops a stream and records it as interrupted when the msw client aborts mid-stream', async () => {
    const mock = createMockHandlers({ seed: SEED, defaultToken: TOKEN, limits: false, itlMs: 20, completionTokens: 40, baseUrl: 'https://iari-mock.test/v1' });
    const msw = setupServer(...mock.handlers);
    msw.listen({ onUnhandledFrame: 'error' });
    try {
      const models = (await (await fetch('https://iari-mock.test/v1/models')).json()) as { data: { id: string }[] };
      // msw keeps a clone of every response, so reader.cancel() alone never reaches the handler: abort the request.
      const abort = new AbortController();
      const response = await fetch('https://iari-mock.test/v1/chat/completions', {
        method: 'POST',
        signal: abort.signal,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: models.data[0]?.id, messages: [{ role: 'user', content: 'hi' }], stream: true }),
      });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      abort.abort();
      await reader.read().catch(() => undefined);
      const chain = mock.receipts?.chain('acct_dev').data as { outcome?: { status: string } }[];
      expect(chain.map((r) => r.outcome?.status ?? 'gate')).toEqual(['gate', 'interrupted']);
    } finally {
      msw.close();
      mock.close();
    }
  });
});
