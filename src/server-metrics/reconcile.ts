// Do the server's counters agree with what it served? Each finding holds both numbers and the
// tolerance allowed between them, with its reason. The window is from the read taken before the run's
// first request to the read taken after its last ended, so with no other traffic on the server the
// counters must grow by exactly what the answers' usage says; only requests whose usage the client never
// saw (failed, cut at the end) widen the tolerance, by what they may have cost at most.
import type { BucketHistogram, CounterKey, HistogramKey } from './vocabulary.ts';

export interface ClientTotals {
  requests: number;
  /** Answers that ended well, and the rest (failed, or cut at the end of the run). */
  ok: number;
  notOk: number;
  usageReported: number;
  /** Σ usage.completion_tokens of the answers that reported it. */
  completionTokens: number;
  promptTokens: number;
  promptReported: number;
  cachedTokens: number;
  cachedReported: number;
  /** Σ max_tokens of the requests without usage: what the server may have generated for them at most. */
  unreportedMaxTokens: number;
  /** Client TTFT from the actual send, over the answers that had one. */
  ttftCount: number;
  ttftSumUs: number;
}

export type ReconcileId = 'generated_tokens' | 'prompt_tokens' | 'cached_tokens' | 'requests_finished' | 'ttft' | 'counters_monotonic';

export interface ReconcileFinding {
  id: ReconcileId;
  verdict: 'agree' | 'disagree' | 'no_data';
  /** The server's number (a counter's growth over the run; the TTFT mean in µs), and the client's. */
  server: number | null;
  client: number | null;
  /** The server's number may be below the client's by `below` and above it by `above` (null: unbounded). */
  tolerance: { below: number | null; above: number | null; why: string };
  message: string;
}

export interface ReconcileInput {
  counters: Partial<Record<CounterKey, { delta: number }>>;
  histograms: Partial<Record<HistogramKey, { window: { count: number; meanUs: number | null } | null }>>;
  client: ClientTotals;
  decreaseCount: number;
  decreases: readonly { series: string; from: number; to: number }[];
  status: 'ok' | 'unmapped' | 'nothing';
  /** Shards besides this one: their requests reach the server too, so its counters may be higher by any amount. */
  otherShards?: number;
  /**
   * iari report merge, when the shards that loaded one server cannot be joined exactly (a shard
   * recorded no read before its priming request): why the server's count is bounded from below only.
   * A finding that holds that bound is then no_data, never a pass (fail closed); below it, it disagrees.
   */
  unbounded?: string;
}

/** TTFT: the server's mean may exceed the client's by this much (clocks read at different points of one event). */
export const TTFT_SLACK_US = 1000;

const n = (x: number): string => Math.round(x).toLocaleString('en-US');
const ms = (us: number): string => `${(us / 1000).toFixed(1)} ms`;

export function reconcile(s: ReconcileInput): ReconcileFinding[] {
  if (s.status !== 'ok') return [];
  const c = s.client;
  const out: ReconcileFinding[] = [];
  const judge = (id: ReconcileId, server: number | null, client: number | null, below: number | null, above: number | null, why: string, say: (server: number, client: number) => string, missing: string): void => {
    if (server === null || client === null) {
      out.push({ id, verdict: 'no_data', server, client, tolerance: { below, above, why }, message: missing });
      return;
    }
    const ok = (below === null || server >= client - below) && (above === null || server <= client + above);
    // Merged shards that could not be joined exactly: the lower bound held is not a pass.
    const verdict = !ok ? 'disagree' : s.unbounded !== undefined && others === 0 ? 'no_data' : 'agree';
    out.push({ id, verdict, server, client, tolerance: { below, above, why }, message: say(server, client) });
  };
  const delta = (k: CounterKey): number | null => s.counters[k]?.delta ?? null;
  const others = s.otherShards ?? 0;
  // A shard shares the server with the others: only a lower bound holds here (iari report merge judges the whole).
  const shared = (above: number | null, why: string): [number | null, string] =>
    others > 0 ? [null, `${why}; ${others} other shard(s) load the same server, so it may count more (iari report merge reconciles the whole run)`] : s.unbounded !== undefined ? [null, `${why}; ${s.unbounded}`] : [above, why];
  const unreported = c.requests - c.usageReported;
  judge(
    'generated_tokens',
    delta('generatedTokens'),
    c.usageReported === 0 ? null : c.completionTokens,
    0,
    ...shared(c.unreportedMaxTokens, unreported === 0 ? 'every answer reported usage: exact' : `${unreported} request(s) reported no usage: the server may have generated up to their max_tokens (${n(c.unreportedMaxTokens)})`),
    (sv, cl) => `server counted ${n(sv)} generated tokens; the answers' usage says ${n(cl)}`,
    delta('generatedTokens') === null ? 'the server publishes no generated-token counter' : 'no answer reported usage.completion_tokens',
  );
  // Prompt and cached tokens: exact when every answer reported the field, else the server may count more.
  const promptSide = (id: 'prompt_tokens' | 'cached_tokens', key: CounterKey, total: number, reported: number, o: { field: string; short: string; counted: string; says: string; counter: string }): void => {
    const all = reported === c.requests;
    judge(
      id,
      delta(key),
      reported === 0 ? null : total,
      0,
      ...shared(all ? 0 : null, all ? `every answer reported ${o.short}: exact` : `${c.requests - reported} request(s) reported no ${o.short.replace(/^usage\./, '')}: the server's count may be higher by any amount`),
      (sv, cl) => `server counted ${n(sv)} ${o.counted}; ${o.says} ${n(cl)}`,
      delta(key) === null ? `the server publishes no ${o.counter} counter` : `no answer reported ${o.field}`,
    );
  };
  promptSide('prompt_tokens', 'promptTokens', c.promptTokens, c.promptReported, { field: 'usage.prompt_tokens', short: 'usage.prompt_tokens', counted: 'prompt tokens', says: "the answers' usage says", counter: 'prompt-token' });
  promptSide('cached_tokens', 'cachedTokens', c.cachedTokens, c.cachedReported, { field: 'usage.prompt_tokens_details.cached_tokens', short: 'cached_tokens', counted: 'cache-hit tokens', says: "the answers' cached_tokens say", counter: 'cache-hit' });
  judge(
    'requests_finished',
    delta('requestsFinished'),
    c.requests === 0 ? null : c.ok,
    0,
    ...shared(c.notOk, c.notOk === 0 ? 'every request ended well: exact' : `${c.notOk} request(s) failed or were cut at the end: the server may have finished them`),
    (sv, cl) => `server counted ${n(sv)} finished requests; ${n(cl)} answers ended well`,
    delta('requestsFinished') === null ? 'the server publishes no finished-request counter' : 'no request was sent',
  );
  const ttft = s.histograms.ttft?.window ?? null;
  const clientMean = c.ttftCount === 0 ? null : c.ttftSumUs / c.ttftCount;
  judge(
    'ttft',
    ttft?.meanUs ?? null,
    clientMean === null ? null : Math.round(clientMean),
    null,
    TTFT_SLACK_US,
    `the client's TTFT holds the server's plus the network and any queue outside the engine: the server's mean may be lower by any amount, higher by at most ${ms(TTFT_SLACK_US)}`,
    (sv, cl) => `client TTFT mean ${ms(cl)}, the server's histogram ${ms(sv)} (over ${n(ttft?.count ?? 0)} observations): ${ms(cl - sv)} of network and queue outside the engine`,
    ttft === null ? 'the server publishes no TTFT histogram' : ttft.meanUs === null ? 'the server observed no TTFT during the run' : 'no answer had a first token',
  );
  const d = s.decreases[0];
  out.push({
    id: 'counters_monotonic',
    verdict: s.decreaseCount === 0 ? 'agree' : 'disagree',
    server: s.decreaseCount,
    client: 0,
    tolerance: { below: 0, above: 0, why: 'a counter never goes down (a restart resets it: the run then cannot be reconciled)' },
    message: s.decreaseCount === 0 ? 'no counter went down between two reads' : `${s.decreaseCount} counter decrease(s), e.g. ${d?.series ?? '?'} went from ${d?.from ?? '?'} to ${d?.to ?? '?'}`,
  });
  return out;
}

/** server.reconcile: held when at least one finding had data and none disagreed; null when none had data. */
export function reconcileHeld(findings: readonly ReconcileFinding[]): boolean | null {
  const judged = findings.filter((f) => f.verdict !== 'no_data' && f.id !== 'counters_monotonic');
  if (judged.length === 0) return null;
  return findings.every((f) => f.verdict !== 'disagree');
}

export type { BucketHistogram };
