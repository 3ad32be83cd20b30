import type { CheckContext } from '../context/check-types.ts';
import type { Judge } from '../kernel/judge.ts';
import { modelUnderTest, PROMPT } from '../requests/common-requests.ts';
import { CHECK_TEXT_TOKENS } from '../requests/output-bound.ts';
import { rateLimitGiveUp } from '../rate-limits/rate-limit-retry.ts';
import { openaiNode } from './client-libraries.ts';
import { libraryOp, type OpEnv, type OpResult } from './client-op.ts';
import { ClientTransport } from './client-transport.ts';
import { runInClientProcess } from './client-process.ts';

// CHAT-031 and CHAT-STREAM-038 ask whether the official SDK parses the server's answers (chat.ts,
// chat-stream.ts). openai-node runs where the CLIENT area's libraries run, in iari's client process
// (client-process.ts): the main process imports none of them.

async function bounded(env: OpEnv): Promise<{ max_completion_tokens?: number }> {
  return (await env.caps()).bound ? { max_completion_tokens: CHECK_TEXT_TOKENS } : {};
}

function thrown(what: string, error: unknown): OpResult {
  return { problem: `${what}: ${error instanceof Error ? error.message : String(error)}` };
}

const create = libraryOp('chat-openai-sdk-create', async (env) => {
  const c = await openaiNode(env.t, env.key);
  if (c === undefined) return 'not-installed';
  try {
    const res = await c.chat.completions.create({ model: env.model, messages: [{ role: 'user', content: PROMPT }], ...(await bounded(env)) });
    return Array.isArray(res.choices) ? undefined : { problem: 'the SDK returned no completion object', received: res };
  } catch (error) {
    return thrown('openai SDK threw', error);
  }
});

const stream = libraryOp('chat-openai-sdk-stream', async (env) => {
  const c = await openaiNode(env.t, env.key);
  if (c === undefined) return 'not-installed';
  try {
    const s = await c.chat.completions.create({ model: env.model, messages: [{ role: 'user', content: PROMPT }], stream: true, ...(await bounded(env)) });
    let chunks = 0;
    for await (const chunk of s) if (chunk !== undefined) chunks += 1;
    return chunks > 0 ? undefined : { problem: 'the SDK stream yielded no chunk' };
  } catch (error) {
    return thrown('openai SDK threw while streaming', error);
  }
});

/** Runs the SDK's call in the client process and judges `id` by what it returned, as the check did in-process. */
async function judgeSdk(op: string, id: string, ctx: CheckContext, j: Judge): Promise<void> {
  const model = await modelUnderTest(ctx);
  const t = new ClientTransport(ctx);
  const ran = await runInClientProcess({ name: op, ctx, t, model, token: ctx.http.tokenForProbe(), timeoutMs: ctx.checkTimeoutMs });
  if ('lost' in ran) {
    j.undecided(id, 'deadline', `not decided: ${ran.lost}`);
    return;
  }
  const { outcome } = ran;
  // A rate limit iari stopped waiting for: the runner skips the check and LIMIT-010 reports it.
  if ('error' in outcome && rateLimitGiveUp(outcome.error) !== undefined) throw outcome.error;
  // An answer that never came: blocked by its root cause, as for the checks' own requests.
  const stalled = t.stall();
  if (stalled !== undefined && ('error' in outcome || outcome.value !== undefined)) throw stalled;
  if ('error' in outcome) throw outcome.error;
  const r = outcome.value;
  if (r === 'not-installed') j.skip(id, 'the openai package is not installed');
  else if (r === undefined) j.pass(id);
  else if ('skip' in r) j.skip(id, r.skip);
  else j.violated(id, { message: ctx.http.redact(r.problem), ...(r.received === undefined ? {} : { received: r.received }) });
}

export const sdkCreate = (ctx: CheckContext, j: Judge): Promise<void> => judgeSdk(create, 'CHAT-031', ctx, j);
export const sdkStream = (ctx: CheckContext, j: Judge): Promise<void> => judgeSdk(stream, 'CHAT-STREAM-038', ctx, j);
