import { decodeHistogram, newHistogram, record, summarize, type Histogram } from './hdr.ts';
import type { HistogramSummary, ReasoningReport } from './load-result.ts';
import type { TokenEvent } from './request-timing.ts';
import type { ResultSection, SectionHistogram, SectionRunFigures, SectionSlo, SectionTile } from '../../sections/section-contract.ts';
import { tileMs, tileNum, tileUs } from '../../sections/tile-format.ts';

/**
 * Reasoning-aware figures of the successful measured requests that streamed reasoning
 * (delta.reasoning_content or delta.reasoning), as AIPerf reports them: TTFT to the first token of
 * any kind (the run's `ttft`), TTFO to the first answer token, the reasoning phase between them,
 * reasoning tokens (usage.completion_tokens_details.reasoning_tokens, else counted), and the
 * per-token ITL over all tokens and over the answer alone.
 */
export class ReasoningAcc {
  requests = 0;
  fromUsage = 0;
  reasoningTokens = 0;
  readonly ttfo: Histogram = newHistogram();
  readonly phase: Histogram = newHistogram();
  readonly tokens: Histogram = newHistogram();
  readonly itlAll: Histogram = newHistogram();
  readonly itlAnswer: Histogram = newHistogram();

  /**
   * One successful measured request; returns its TTFO (µs) or null (it streamed no reasoning, or no answer).
   * D-LOAD-03: a chunk of k tokens arriving g after the previous token-bearing chunk is k tokens of g/k each.
   */
  add(events: readonly TokenEvent[], originNs: bigint, reasoningTokens: number | undefined, source: 'usage' | 'tokenizer' | undefined): number | null {
    if (reasoningTokens === undefined) return null;
    this.requests++;
    if (source === 'usage') this.fromUsage++;
    this.reasoningTokens += reasoningTokens;
    record(this.tokens, reasoningTokens);
    const first = events[0];
    let prevAll: TokenEvent | undefined = first;
    let prevAnswer: TokenEvent | undefined;
    let ttfo: number | null = null;
    for (let i = 0; i < events.length; i++) {
      const ev = events[i] as TokenEvent;
      if (i > 0 && ev.tokens > 0 && prevAll !== undefined) {
        record(this.itlAll, Number(ev.atNs - prevAll.atNs) / 1000 / ev.tokens, ev.tokens);
        prevAll = ev;
      }
      if (ev.reasoning === true) continue;
      if (ttfo === null) {
        ttfo = Number(ev.atNs - originNs) / 1000;
        record(this.ttfo, ttfo);
        if (first !== undefined) record(this.phase, Number(ev.atNs - first.atNs) / 1000);
      } else if (prevAnswer !== undefined && ev.tokens > 0) record(this.itlAnswer, Number(ev.atNs - prevAnswer.atNs) / 1000 / ev.tokens, ev.tokens);
      if (ev.tokens > 0) prevAnswer = ev;
    }
    return ttfo;
  }
}

const summary = (h: Histogram): HistogramSummary | null => (h.totalCount === 0 ? null : summarize(h, 'us'));

export function buildReasoningReport(a: ReasoningAcc): ReasoningReport | undefined {
  if (a.requests === 0) return undefined;
  return {
    requests: a.requests,
    fromUsage: a.fromUsage,
    reasoningTokens: a.reasoningTokens,
    ttfo: summary(a.ttfo),
    reasoningPhase: summary(a.phase),
    reasoningTokensPerRequest: a.tokens.totalCount === 0 ? null : summarize(a.tokens, 'tokens'),
    itlAll: summary(a.itlAll),
    itlAnswer: summary(a.itlAnswer),
  };
}

/** Adds the reasoning figures of several results (shards): sums, histograms bucket by bucket. */
export function mergeReasoningReports(reports: readonly (ReasoningReport | undefined)[]): ReasoningReport | undefined {
  const a = new ReasoningAcc();
  const add = (h: Histogram, s: HistogramSummary | null): void => {
    if (s !== null) h.add(decodeHistogram(s.hdr));
  };
  for (const r of reports) {
    if (r === undefined) continue;
    a.requests += r.requests;
    a.fromUsage += r.fromUsage;
    a.reasoningTokens += r.reasoningTokens;
    add(a.ttfo, r.ttfo);
    add(a.phase, r.reasoningPhase);
    add(a.tokens, r.reasoningTokensPerRequest);
    add(a.itlAll, r.itlAll);
    add(a.itlAnswer, r.itlAnswer);
  }
  return buildReasoningReport(a);
}

/** The summary line (null: no request streamed reasoning). */
export function reasoningLine(r: ReasoningReport | undefined, fmt: (us: number | null | undefined) => string): string | null {
  if (r === undefined) return null;
  const p = (h: HistogramSummary | null, q: 'p50' | 'p99'): string => fmt(h?.percentiles[q]);
  return `reasoning (${r.requests} requests; ttft counts the first token of any kind): ttfo (first answer token) p50 ${p(r.ttfo, 'p50')} p99 ${p(r.ttfo, 'p99')}; reasoning phase p50 ${p(r.reasoningPhase, 'p50')}; reasoning tokens mean ${(r.reasoningTokens / r.requests).toFixed(1)} (${r.fromUsage === r.requests ? 'usage' : r.fromUsage === 0 ? 'counted' : `usage for ${r.fromUsage}, counted for the rest`}); itl p50/p99 all tokens ${p(r.itlAll, 'p50')}/${p(r.itlAll, 'p99')}, answer only ${p(r.itlAnswer, 'p50')}/${p(r.itlAnswer, 'p99')}`;
}

/** The time to the first answer token (µs from `originNs`) of a request that streamed reasoning; null: no answer token. */
export function firstAnswerUs(events: readonly TokenEvent[], originNs: bigint): number | null {
  const ev = events.find((e) => e.reasoning !== true);
  return ev === undefined ? null : Number(ev.atNs - originNs) / 1000;
}

function reasoningTile(x: ReasoningReport, run: SectionRunFigures): SectionTile {
  const ttft = run.metrics['ttft'];
  const row = (name: string, h: SectionHistogram | null | undefined, f: (v: number | null | undefined) => string = tileUs): string[] => [name, f(h?.percentiles.p50), f(h?.percentiles.p95), f(h?.percentiles.p99), f(h?.mean), tileNum(h?.count ?? 0, 0)];
  const tokens = (v: number | null | undefined): string => tileNum(v, 0);
  return {
    id: 'reasoning',
    title: 'Reasoning vs answer',
    stats: [
      { label: 'requests with reasoning', value: tileNum(x.requests, 0), hint: `${tileNum(x.fromUsage, 0)} reported reasoning_tokens in usage; the others were counted` },
      { label: 'reasoning tokens', value: tileNum(x.reasoningTokens, 0) },
      { label: 'TTFT / TTFO p50', value: `${tileUs(ttft?.percentiles.p50)} / ${tileUs(x.ttfo?.percentiles.p50)}`, tone: 'info', hint: 'time to the first token (reasoning included) and to the first answer token' },
      { label: 'ITL p50 all / answer', value: `${tileUs(x.itlAll?.percentiles.p50)} / ${tileUs(x.itlAnswer?.percentiles.p50)}` },
    ],
    table: {
      head: ['metric', 'p50', 'p95', 'p99', 'mean', 'samples'],
      rows: [
        row('TTFT (first token, reasoning included)', ttft),
        row('TTFO (first answer token)', x.ttfo),
        row('reasoning phase (TTFO − TTFT)', x.reasoningPhase),
        row('reasoning tokens per request', x.reasoningTokensPerRequest, tokens),
        row('ITL, every token', x.itlAll),
        row('ITL, answer tokens only', x.itlAnswer),
      ],
      numeric: [1, 2, 3, 4, 5],
    },
    charts: [
      {
        kind: 'bars',
        title: 'Reasoning vs answer timing (p50 and p95)',
        series: ['p50', 'p95'],
        groups: [
          { label: 'TTFT', values: [tileMs(ttft, 'p50'), tileMs(ttft, 'p95')] },
          { label: 'TTFO', values: [tileMs(x.ttfo, 'p50'), tileMs(x.ttfo, 'p95')] },
          { label: 'ITL all', values: [tileMs(x.itlAll, 'p50'), tileMs(x.itlAll, 'p95')] },
          { label: 'ITL answer', values: [tileMs(x.itlAnswer, 'p50'), tileMs(x.itlAnswer, 'p95')] },
        ],
        xLabel: 'ms',
        format: 'ms',
      },
    ],
  };
}

/** `--slo 'ttfo.p95<2s'`: the time to the first answer token of the requests that streamed reasoning. */
const ttfoSlo: SectionSlo<ReasoningReport> = {
  metric: 'ttfo',
  stats: ['p50', 'p90', 'p95', 'p99', 'p99.9', 'mean', 'max'],
  unit: 'us',
  help: 'ttfo: time to the first answer token of the requests that streamed reasoning (no data when none did)',
  observe(r, stat) {
    const h = r?.ttfo;
    if (h === undefined || h === null || h.count === 0) return null;
    return stat === 'mean' ? h.mean : stat === 'max' ? h.max : (h.percentiles[stat as keyof typeof h.percentiles] ?? null);
  },
  noData: 'no successful request streamed reasoning in the measured window (TTFO is measured on reasoning; without it the first answer token is the first token: use ttft)',
};

/** The `reasoning` section of load.json: absent when no successful request streamed reasoning. */
export const reasoningSection: ResultSection<ReasoningReport, ReasoningAcc> = {
  key: 'reasoning',
  place: 'workload',
  open: () => new ReasoningAcc(),
  collect(acc, r) {
    if (r.outcome === 'ok') acc.add(r.timing.tokenEvents, r.timing.intendedNs, r.timing.reasoningTokens, r.timing.reasoningSource);
  },
  build: (acc) => buildReasoningReport(acc),
  merge: (parts) => mergeReasoningReports(parts),
  summary: (out, fmt) => [reasoningLine(out, fmt.us) ?? ''].filter((l) => l !== ''),
  tile: reasoningTile,
  slos: [ttfoSlo],
};
