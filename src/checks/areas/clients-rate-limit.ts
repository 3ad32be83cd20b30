import type { CheckContext, CheckDef } from '../context/check-types.ts';
import { bound } from '../requests/capability-probes.ts';
import { at, isInt } from '../kernel/evidence.ts';
import { chatBody, modelUnderTest } from '../requests/common-requests.ts';
import { MAX_PROBES } from './limits.ts';
import { CLIENT_NAMES } from '../clients/client-libraries.ts';
import { judgeResult, libraryOp, type OpResult, type OpTransport } from '../clients/client-op.ts';
import { ClientTransport, clientErrorText } from '../clients/client-transport.ts';
import { prepareClientProcess, runInClientProcess } from '../clients/client-process.ts';
import { openaiNode6Ops, openaiNodeOps } from './clients-openai.ts';
import { vercelAi6Ops, vercelAiOps } from './clients-vercel.ts';
import { langchainRateLimited } from './clients-langchain.ts';
import { CHAT_COMPLETIONS_PATH } from '../../protocols/chat-completions/chat-request.ts';

// Each client's error for a 429, one check per client (so a run without one library never loads it).

/**
 * A request the server answers 429 with. On the bundled mock: the account whose monthly spend cap
 * is reached (its profile answers 429 insufficient_quota, as OpenAI does), which costs nothing.
 * Elsewhere only with `--include limits`: the run's account sends small requests until its
 * requests_per_minute is spent, as the LIMIT checks do (later checks wait the window out, rate-limit-retry.ts).
 */
async function provoke(ctx: CheckContext, model: string): Promise<{ key: string } | { skip: string }> {
  if (ctx.limitTokens.capped !== undefined) return { key: ctx.limitTokens.capped };
  if (!ctx.includeLimits) return { skip: 'needs a request the server answers 429: run with --include limits (it spends the account\'s requests_per_minute)' };
  const rpm = at((await ctx.http.get('/v1/me')).json, 'limits', 'requests_per_minute');
  if (!isInt(rpm) || rpm < 1 || rpm > MAX_PROBES) return { skip: `requests_per_minute ${String(rpm)} cannot be exhausted within ${MAX_PROBES} requests` };
  const body = chatBody(ctx, model, { ...(await bound(ctx, 1)) });
  for (let i = 0; i <= rpm; i++) {
    const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, body, { rateLimit: 'raw' });
    if (ex.status === 429) return { key: ctx.http.tokenForProbe() };
  }
  return { skip: `${rpm + 1} requests within a minute drew no 429 (LIMIT-001 judges it)` };
}

function rateLimitOp(op: { name: string; id: string; client: string; call: string; run: (t: OpTransport, key: string, model: string) => Promise<OpResult | 'not-installed'> }): CheckDef {
  // The library's call runs in iari's client process (client-process.ts); the relay sends the provoking key in its stand-in's place.
  libraryOp(op.name, (env) => op.run(env.t, env.key, env.model));
  return {
    name: op.name,
    area: 'clients',
    ids: [op.id],
    title: `${op.client} ${op.call} raises its rate-limit error carrying the server message`,
    prepare: prepareClientProcess,
    async run(ctx, j) {
      let model: string;
      try {
        model = await modelUnderTest(ctx);
      } catch (error) {
        j.skip(op.id, `no model id to call it with (${(error as Error).message}; MODELS checks)`);
        return;
      }
      const p = await provoke(ctx, model);
      if ('skip' in p) {
        j.skip(op.id, p.skip);
        return;
      }
      // The 429 must reach the library, not be waited out.
      const t = new ClientTransport(ctx, { rateLimit: 'raw' });
      const ran = await runInClientProcess({ name: op.name, ctx, t, model, token: p.key, timeoutMs: ctx.checkTimeoutMs });
      if ('lost' in ran) {
        j.undecided(op.id, 'deadline', `not decided: ${ran.lost}`);
        return;
      }
      const { outcome, logged } = ran;
      if ('error' in outcome) j.violated(op.id, t.failure(`${op.client} ${op.call} threw ${clientErrorText(outcome.error)}`));
      else judgeResult(j, op, t, outcome.value, logged);
    },
  };
}

export const openaiRateLimitCheck = rateLimitOp({ name: 'client-openai-429', id: 'CLIENT-009', client: CLIENT_NAMES.openai, call: 'client.chat.completions.create() answered 429', run: openaiNodeOps.rateLimited });
export const openai6RateLimitCheck = rateLimitOp({ name: 'client-openai6-429', id: 'CLIENT-044', client: CLIENT_NAMES.openai6, call: 'client.chat.completions.create() answered 429', run: openaiNode6Ops.rateLimited });
export const vercelRateLimitCheck = rateLimitOp({ name: 'client-vercel-429', id: 'CLIENT-017', client: CLIENT_NAMES.vercel, call: 'generateText() answered 429', run: vercelAiOps.rateLimited });
export const vercel6RateLimitCheck = rateLimitOp({ name: 'client-vercel6-429', id: 'CLIENT-053', client: CLIENT_NAMES.vercel6, call: 'generateText() answered 429', run: vercelAi6Ops.rateLimited });
export const langchainRateLimitCheck = rateLimitOp({ name: 'client-langchain-429', id: 'CLIENT-025', client: CLIENT_NAMES.langchain, call: 'ChatOpenAI.invoke() answered 429', run: langchainRateLimited });
