// What a run says before any traffic: the announce line for a host that is not loopback, the
// capacity search's bound, and the pre-window deadline they and the run share.
import type { LoadPlan } from './load-options.ts';
import { runLengthS } from '../run-load.ts';
import { capacityBound } from '../search/capacity-search.ts';
import { displayUrl, proxyFor } from '../../client/connection-options.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS, END_GRACE_MS, preWindowBudgetMs } from '../executors/engine.ts';

/**
 * Printed before any traffic to a host that is not loopback: what is about to be loaded, how hard
 * and for how long, so a wrong URL or level can be stopped (Ctrl-C) before it matters.
 */
export function announceLine(plan: LoadPlan, baseUrl: string, env: NodeJS.ProcessEnv = process.env): string {
  const proxy = proxyFor(baseUrl, env);
  const m = plan.mode;
  const level = m.kind === 'open' && m.arrival === 'trace' ? `open loop, trace replay (${plan.workloadPlan.trace?.file ?? ''}, speed x${plan.workloadPlan.trace?.options.speed ?? 1})` : m.kind === 'open' ? `open loop, ${m.rate} requests/s (${m.arrival} arrivals${m.ramp === undefined ? '' : `, ramped ${m.ramp.shape} over ${m.ramp.durationS} s`})` : `closed loop, ${m.concurrency} concurrent requests`;
  const drainS = END_GRACE_MS / 1000;
  const preS = preWindowS(plan);
  const boundS = plan.sweep || plan.findCapacity !== null ? null : Math.ceil(preS + plan.warmupS + (plan.durationS ?? 600) + drainS);
  const bound = plan.findCapacity !== null
    ? `capacity search with levels of ${plan.durationS ?? 0} s, ${capacityBound(plan.findCapacity.budgetS, levelBoundS(plan)).line}`
    : plan.sweep
    ? `sweep of at most ${plan.sweepSteps} steps of ${plan.durationS ?? 0} s, level x2 per step`
    : plan.durationS !== null
      ? `for ${plan.warmupS > 0 ? `${plan.warmupS} s warmup + ` : ''}${plan.durationS} s`
      : plan.requests === null
        ? 'for the length of the trace (at most 1 h)'
        : `until ${plan.requests} measured requests (at most 600 s)`;
  return `iari load: sending load to ${baseUrl}${proxy === null ? '' : ` via proxy ${displayUrl(proxy)}`}: ${level}${plan.shard === null ? '' : ` (shard ${plan.shard.index}/${plan.shard.count})`}, ${bound}, then ${drainS} s of grace for requests in flight${boundS === null ? '' : `; ends within ${boundS} s (${preS} s to choose the model and prime, the run, the grace), then writes its reports`}; Ctrl-C stops it\n`;
}

/** Said before any traffic when the run sends no token (issue 43: a server without auth needs none); null otherwise. */
export function noTokenLine(plan: Pick<LoadPlan, 'baseUrl' | 'token'>): string | null {
  return plan.baseUrl !== null && plan.token === '' ? 'iari load: no token: none named (--token-env, --token-file) and $IARI_TOKEN is unset, so requests carry no Authorization header; a server that asks for one answers 401, counted as http_status errors\n' : null;
}

/** The longest one level of a capacity search can take, s: pre-window, warmup, the run, the grace. */
export function levelBoundS(plan: Pick<LoadPlan, 'warmupS' | 'durationS' | 'requestTimeoutMs'>): number {
  return preWindowS(plan) + plan.warmupS + (plan.durationS ?? 600) + END_GRACE_MS / 1000;
}

/** Said before any traffic, whatever the target: what the search does and when it ends at the latest. */
export function capacityLine(plan: LoadPlan): string {
  const f = plan.findCapacity;
  if (f === null) return '';
  const what = plan.mode.kind === 'open' ? `rate from ${plan.mode.rate} req/s` : `concurrency from ${plan.mode.concurrency}`;
  return `iari load: capacity search on ${what} against ${plan.sloExprs.join(', ')}, to within ${+(f.tolerance * 100).toFixed(2)}%: ${capacityBound(f.budgetS, levelBoundS(plan)).line}\n`;
}

/** The pre-window deadline of a plan, s (engine.ts preWindowBudgetMs). */
export function preWindowS(plan: Pick<LoadPlan, 'warmupS' | 'durationS' | 'requestTimeoutMs'>): number {
  return preWindowBudgetMs(plan.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, runLengthS(plan)) / 1000;
}

