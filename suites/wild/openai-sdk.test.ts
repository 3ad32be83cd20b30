import OpenAI from 'openai';
import OpenAIv6 from 'openai-v6';
import { VERSION as openaiVersion } from 'openai/version';
import { VERSION as openaiV6Version } from 'openai-v6/version';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import { loadCorpus, type LoadedExchange, type SdkExpectation } from './corpus.ts';
import { startReplayFor, startWildMock } from './wild-run.ts';

// The client impact a fixture records as "observed" is observed here, every run: each installed
// major of the openai package (the official SDK: `openai`, and the previous major as `openai-v6`)
// is pointed at the replay server serving the recording, and does what the fixture says for that
// major (throws which error with which fields, or yields what).

/** The installed majors of openai-node, each as its constructor. */
const MAJORS: readonly { major: string; Client: typeof OpenAI }[] = [
  { major: majorOf(openaiVersion), Client: OpenAI },
  { major: majorOf(openaiV6Version), Client: OpenAIv6 as unknown as typeof OpenAI },
];

function majorOf(version: string): string {
  return version.split('.')[0] as string;
}

const corpus = loadCorpus().filter((ex) => ex.openaiSdk !== undefined);
let mock: MockServer;

beforeAll(async () => {
  mock = await startWildMock();
});
afterAll(async () => {
  await mock?.close();
});

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The request the SDK sends: the recorded body, with a model and members that make the recording's match apply. */
function paramsFor(ex: LoadedExchange, model: string, stream: boolean): Record<string, unknown> {
  const recorded = isRecord(ex.request.body) ? ex.request.body : {};
  const m = ex.replay.match;
  const params: Record<string, unknown> = { ...recorded, ...(m.bodyIncludes ?? {}) };
  if (m.model !== 'unlisted') params['model'] = model;
  if (stream) params['stream'] = true;
  else delete params['stream'];
  return params;
}

interface Observed {
  outcome: 'ok' | 'throws';
  error?: { name: string; message: string; status: unknown; code: unknown; type: unknown; error: unknown };
  models?: number;
  chunks?: number;
  finishReason?: string | null;
  toolCalls?: number;
  hasUsage?: boolean;
}

async function observe(ex: LoadedExchange, origin: string, Client: typeof OpenAI): Promise<Observed> {
  const op = ex.openaiSdk?.operation;
  const auth = ex.replay.match.auth;
  const client = new Client({ baseURL: `${origin}/v1`, apiKey: auth === 'invalid' || auth === 'not-valid' ? 'sk-wild-not-a-key' : mock.tokens.default, maxRetries: 0, timeout: 10_000 });
  const model = mock.admin.models().available[0] ?? 'unknown';
  try {
    if (op === 'models-list') {
      let models = 0;
      for await (const _m of client.models.list()) models += 1;
      return { outcome: 'ok', models };
    }
    if (op === 'stream-iterate') {
      const stream = (await client.chat.completions.create(paramsFor(ex, model, true) as never)) as unknown as AsyncIterable<{ usage?: unknown }>;
      let chunks = 0;
      let hasUsage = false;
      for await (const c of stream) {
        chunks += 1;
        if (c.usage !== undefined && c.usage !== null) hasUsage = true;
      }
      return { outcome: 'ok', chunks, hasUsage };
    }
    if (op === 'stream-helper') {
      const stream = client.chat.completions.stream(paramsFor(ex, model, true) as never);
      const done = await stream.finalChatCompletion();
      const choice = done.choices[0];
      return { outcome: 'ok', finishReason: choice?.finish_reason ?? null, toolCalls: choice?.message.tool_calls?.length ?? 0 };
    }
    const done = (await client.chat.completions.create(paramsFor(ex, model, false) as never)) as unknown as { choices?: { finish_reason?: string | null; message?: { tool_calls?: unknown[] } }[] };
    const choice = done.choices?.[0];
    return { outcome: 'ok', finishReason: choice?.finish_reason ?? null, toolCalls: choice?.message?.tool_calls?.length ?? 0 };
  } catch (error) {
    const e = error as Record<string, unknown> & Error;
    return { outcome: 'throws', error: { name: e.constructor.name, message: e.message, status: e['status'], code: e['code'], type: e['type'], error: e['error'] } };
  }
}

/** The fields of the observation the fixture names, so the comparison shows only what it claims. */
function claimed(o: Observed, want: SdkExpectation): Record<string, unknown> {
  const out: Record<string, unknown> = { outcome: o.outcome };
  if (want.errorName !== undefined) out['errorName'] = o.error?.name;
  if (want.message !== undefined) out['message'] = o.error?.message;
  if (want.messageIncludes !== undefined) out['messageIncludes'] = o.error?.message.includes(want.messageIncludes) === true ? want.messageIncludes : o.error?.message;
  if (want.status !== undefined) out['status'] = o.error?.status;
  if (want.code !== undefined) out['code'] = o.error?.code;
  if (want.type !== undefined) out['type'] = o.error?.type;
  if (want.errorIsUndefined !== undefined) out['errorIsUndefined'] = o.error !== undefined && o.error.error === undefined;
  if (want.models !== undefined) out['models'] = o.models;
  if (want.chunks !== undefined) out['chunks'] = o.chunks;
  if (want.finishReason !== undefined) out['finishReason'] = o.finishReason;
  if (want.toolCalls !== undefined) out['toolCalls'] = o.toolCalls;
  if (want.hasUsage !== undefined) out['hasUsage'] = o.hasUsage;
  return out;
}

describe('wild corpus: what the official openai SDK does with each recorded exchange', () => {
  it('has openai SDK observations for at least 20 exchanges', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(20);
  });

  it('runs two majors of openai-node, the current one first', () => {
    expect(MAJORS.map((m) => m.major)).toEqual(['7', '6']);
  });

  for (const ex of corpus) {
    for (const { major, Client } of MAJORS) {
      const want = ex.openaiSdk?.byMajor?.[major] ?? (ex.openaiSdk?.expect as SdkExpectation);
      it(`${ex.id}: openai ${major} ${ex.openaiSdk?.operation} ${want.outcome === 'ok' ? 'succeeds' : `throws${want.errorName === undefined ? '' : ` ${want.errorName}`}`} as the fixture records`, async () => {
        const replay = await startReplayFor(mock, [ex]);
        try {
          const o = await observe(ex, replay.origin, Client);
          expect(replay.served(ex.id), 'the SDK request never reached the recording').toBeGreaterThan(0);
          expect(claimed(o, want)).toEqual({ ...want });
        } finally {
          await replay.close();
        }
      });
    }
  }
});
