/**
 * `report.html` of `iari load`: summary, SLOs and goodput, latency percentiles, TTFT and ITL
 * distributions (from the exact HDR histograms in load.json), throughput and latency over time
 * (per-second timeslices), the sweep curve when present, and errors by class.
 */
import * as hdr from 'hdr-histogram-js';
import type { ErrorClass, HistogramSummary, LoadResult, MetricName, SloResult, Timeslice } from '../load/results/load-result.ts';
import { errorClasses, percentileKeys } from '../load/results/load-result.ts';
import { badge, factList, html, renderPage, section, simpleTable, statGrid, type Html } from './html-shell.ts';
import { paretoCharts, capacityNote } from './pareto-section.ts';
import { abSection } from './ab-html.ts';
import { cdfChart, histogramChart, lineChart, sweepChart, type Bin } from './svg-charts.ts';
import { sanitize, type Redactor } from './redact.ts';
import { connectionText, engineNote, workloadText } from '../load/results/run-text.ts';
import { workloadSections } from './workload-views.ts';
import { notApplicable, recordLines, recordStop, sectionTiles, type SectionResult } from '../sections/section-run.ts';
import type { AnyRunRecord, AnySection, SectionTile } from '../sections/section-contract.ts';
import { defaultLoadSections, loadRunRecords } from '../load/results/load-sections.ts';
import { tileCard, tileNotes } from './section-tile.ts';
import { tileNum, tilePct, tileUs } from '../sections/tile-format.ts';

/** A duration in µs as a short readable string (ms below 10 s): the tiles' format. */
export const formatUs = tileUs;

function ms(value: number): string {
  return Number.isInteger(value) ? `${value} ms` : `${Number(value.toPrecision(3))} ms`;
}

const num = tileNum;
const pct = tilePct;

/** The recorded (value, count) pairs of an encoded HDR histogram, in value order. */
export function hdrValueCounts(encoded: string): { value: number; count: number }[] {
  if (encoded === '') return [];
  let h: hdr.Histogram;
  try {
    h = hdr.decodeFromCompressedBase64(encoded, 32);
  } catch {
    return [];
  }
  const out: { value: number; count: number }[] = [];
  const iterator = (h as unknown as { recordedValuesIterator?: { reset(): void; hasNext(): boolean; next(): { valueIteratedTo: number; countAtValueIteratedTo: number } } }).recordedValuesIterator;
  if (iterator !== undefined) {
    iterator.reset();
    while (iterator.hasNext()) {
      const v = iterator.next();
      if (v.countAtValueIteratedTo > 0) out.push({ value: v.valueIteratedTo, count: v.countAtValueIteratedTo });
    }
    return out;
  }
  // A histogram without an iterator (wasm build): sample its quantile function.
  const n = h.totalCount;
  for (let q = 0; q <= 1000; q++) out.push({ value: h.getValueAtPercentile(q / 10), count: n / 1001 });
  return out;
}

/**
 * Equal-width bins over [min, p99.9] in ms; the few samples beyond p99.9 go into the last bin so
 * one outlier does not squash the shape (the tooltip says so).
 */
export function binsFromHdr(summary: HistogramSummary, count = 40): Bin[] {
  const values = hdrValueCounts(summary.hdr);
  if (values.length === 0) return [];
  const lo = summary.min / 1000;
  const hi = Math.max(lo + 0.001, summary.percentiles['p99.9'] / 1000);
  const width = (hi - lo) / count;
  const bins: Bin[] = Array.from({ length: count }, (_, i) => ({ lo: lo + i * width, hi: lo + (i + 1) * width, count: 0 }));
  for (const { value, count: c } of values) {
    const i = Math.min(count - 1, Math.max(0, Math.floor((value / 1000 - lo) / width)));
    const bin = bins[i];
    if (bin !== undefined) bin.count += c;
  }
  return bins;
}

export function cdfFromHdr(summary: HistogramSummary): { value: number; fraction: number }[] {
  const values = hdrValueCounts(summary.hdr);
  const total = values.reduce((s, v) => s + v.count, 0);
  let seen = 0;
  return values.map((v) => {
    seen += v.count;
    return { value: v.value / 1000, fraction: total === 0 ? 0 : seen / total };
  });
}

const metricLabels: Record<MetricName, string> = {
  ttfb: 'time to first byte',
  ttft: 'time to first token',
  itl: 'inter-token latency (per token)',
  tpot: 'time per output token',
  e2e: 'end-to-end latency',
  service_ttft: 'TTFT from actual send',
  server_ttft: "the server's own TTFT (llama.cpp timings.prompt_ms)",
  service_e2e: 'e2e from actual send',
  schedule_lag: 'schedule lag',
  event_loop_lag: 'client event-loop lag',
  output_tps: 'output tokens/s per request',
};

function modeText(r: LoadResult): string {
  const m = r.meta.mode;
  return m.kind === 'closed' ? `closed loop, concurrency ${m.concurrency} (${m.engine})` : m.trace !== undefined ? `open loop, trace replay of ${m.trace.file} (${m.trace.format}, ${m.trace.kept} requests, speed x${m.trace.speed}, mean ${m.rate}/s)` : `open loop, ${m.rate}/s ${m.arrival} arrivals (seed ${m.seed}, ${m.engine})`;
}

function sloObserved(s: SloResult): string {
  if (s.observed === null) return 'no samples';
  if (s.unit === 'us') return formatUs(s.observed);
  if (s.unit === 'ratio') return pct(s.observed);
  if (s.unit === 'per_s') return `${num(s.observed, 2)}/s`;
  if (s.unit === 'millitokens_per_s') return `${num(s.observed / 1000, 1)} tok/s`;
  return num(s.observed, 2);
}

function sloThreshold(s: SloResult): string {
  if (s.unit === 'us') return formatUs(s.threshold);
  if (s.unit === 'ratio') return pct(s.threshold);
  if (s.unit === 'millitokens_per_s') return `${num(s.threshold / 1000, 1)} tok/s`;
  return num(s.threshold, 3);
}

function summarySection(r: LoadResult, tiles: readonly SectionTile[], sections: readonly AnySection[], records: readonly AnyRunRecord[]): Html {
  const ttft = r.metrics.ttft;
  const itl = r.metrics.itl;
  const status =
    r.slos.length === 0
      ? html`<p class="status status-neutral">No SLOs given: measurements only.</p>`
      : r.slosPassed
        ? html`<p class="status status-good">SLOs MET: all ${r.slos.length} thresholds held.</p>`
        : html`<p class="status status-bad">SLOs BREACHED: ${r.slos.filter((s) => !s.passed).length} of ${r.slos.length} thresholds failed.</p>`;
  const validity = r.validity.valid
    ? ''
    : html`<p class="status status-warn">Timing may be unreliable: the client was overloaded (event-loop lag p99 ${formatUs(r.validity.eventLoopLagP99Us)} over a ${formatUs(r.validity.budgetUs)} budget).</p>`;
  const stop = recordStop(records, r as unknown as SectionResult);
  const interrupted = stop !== null ? html`<p class="status status-bad">STOPPED: ${stop}; the figures cover the run up to the stop.</p>` : r.interrupted === true ? html`<p class="status status-warn">INTERRUPTED (Ctrl-C): the figures cover the run up to the interrupt.</p>` : '';
  const coordination = recordLines(records, r as unknown as SectionResult).map((line) => html`<p class="status status-neutral">${line}.</p>`);
  const notes = tiles.flatMap(tileNotes);
  const c = r.counts;
  const config = r.meta.config;
  // An answer that arrives whole (embeddings) generates no tokens: the sections say which metrics it lacks, shown as such, never 0.
  const lacks = notApplicable(sections, r as unknown as SectionResult);
  // The sections that read the run's seconds go after the over-time charts, each with its TOC link.
  const endTiles = sectionTiles(sections, r as unknown as SectionResult, 'end');
  const emb = r.meta.config.workload?.embeddings;
  const na = 'not applicable';
  return section(
    'Summary',
    html`${interrupted}${coordination}${status}${validity}${notes}${statGrid([
      { label: 'requests', value: num(c.finished, 0), hint: `${c.started} started in the measured window` },
      { label: 'ok', value: num(c.ok, 0), tone: 'good' },
      { label: 'errors', value: `${num(c.failed, 0)} (${pct(r.errors.rate)})`, tone: c.failed > 0 ? 'bad' : 'neutral' },
      { label: 'requests/s', value: num(r.throughput.rps, 2) },
      ...(lacks.has('output_tps') ? [] : [{ label: 'output tokens/s', value: num(r.throughput.outputTokensPerS, 0) }]),
      ...tiles.flatMap((t) => t.overview ?? []),
      { label: 'goodput/s', value: num(r.goodput.goodputRps, 2), tone: 'info', hint: r.goodput.slos.length === 0 ? `no per-request SLO was given: every successful request (${pct(r.goodput.fraction)} of requests)` : `${pct(r.goodput.fraction)} of requests met every per-request SLO` },
      { label: 'TTFT p50 / p99', value: !lacks.has('ttft') ? `${formatUs(ttft?.percentiles.p50)} / ${formatUs(ttft?.percentiles.p99)}` : na, ...(!lacks.has('ttft') ? {} : { hint: 'a whole answer, no tokens' }) },
      { label: 'ITL p50 / p99', value: !lacks.has('itl') ? `${formatUs(itl?.percentiles.p50)} / ${formatUs(itl?.percentiles.p99)}` : na },
    ])}${factList([
      ['target', `${r.meta.baseUrl} (${r.meta.target}), model ${r.meta.model}`],
      ...(connectionText(r.meta) === null ? [] : [['connection', connectionText(r.meta) ?? ''] as [string, string]]),
      ['mode', modeText(r) + (engineNote(r.meta) === null ? '' : ` (${engineNote(r.meta)})`)],
      ['latency from', r.meta.latencyOrigin === 'intended' ? 'intended send time (coordinated omission corrected)' : 'actual send time'],
      ['window', `${num(r.throughput.windowS, 1)} s measured after ${config.warmupS} s warmup (${c.warmupExcluded} warmup requests excluded, ${c.abortedAtEnd} aborted at the end)`],
      ['requests', `${emb !== undefined ? `POST /v1/embeddings, ${emb.batch} inputs each` : config.stream ? 'streamed' : 'non-streamed'}${emb !== undefined ? '' : `, max_tokens ${config.maxTokens}`}, prompts ${typeof config.prompts === 'string' ? config.prompts : `${config.prompts.file} (${config.prompts.count})`}, timeout ${config.timeoutMs} ms`],
      ['tokens', `${num(c.outputTokens, 0)} output (counted by ${c.tokenSource}), ${num(c.promptTokens, 0)} prompt, ${num(c.events, 0)} stream events checked`],
      ...(workloadText(r.meta) === null ? [] : [['workload', workloadText(r.meta) ?? ''] as [string, string]]),
      ...tiles.flatMap((t) => (t.configRows ?? []).map(([label, value]) => [label, value] as [string, string])),
      ['run', `${r.meta.runId}, ${r.meta.startedAt} to ${r.meta.endedAt}`],
      ['host', `node ${r.meta.host.node}, ${r.meta.host.platform}, ${r.meta.host.cpus} CPUs`],
      ...(r.shard === null ? [] : [['shard', `${r.shard.index}/${r.shard.count}`] as [string, string]]),
      ...(r.mergedFrom === null ? [] : [['merged from', r.mergedFrom.map((m) => (m.shard === null ? m.runId : `${m.runId} (${m.shard.index}/${m.shard.count})`)).join(', ')] as [string, string]]),
    ])}`,
    'summary',
  );
}

function sloSection(r: LoadResult): Html {
  const rows = r.slos.map((s) => [html`<code>${s.expr}</code>`, sloObserved(s), `${s.op} ${sloThreshold(s)}`, s.perRequest ? 'yes' : 'no', badge(s.passed ? 'met' : 'breached', s.passed ? 'good' : 'bad')]);
  const table = rows.length === 0 ? html`<p class="muted">No <code>--slo</code> thresholds were given.</p>` : simpleTable(['SLO', 'observed', 'threshold', 'per request', 'result'], rows, [1]);
  const g = r.goodput;
  return section(
    'SLOs and goodput',
    html`${table}<p>Goodput: <strong>${num(g.goodputRps, 2)} requests/s</strong> (${num(g.goodRequests, 0)} requests, ${pct(g.fraction)}) met ${g.slos.length === 0 ? 'no per-request SLO (goodput = successful requests)' : html`every per-request SLO: ${g.slos.map((s) => html`<code>${s}</code> `)}`}.</p>`,
    'slos',
  );
}

function percentileSection(r: LoadResult): Html {
  const names = (Object.keys(r.metrics) as MetricName[]).filter((n) => r.metrics[n] !== undefined);
  const rows = names.map((name) => {
    const m = r.metrics[name] as HistogramSummary;
    const f = m.unit === 'us' ? formatUs : (v: number) => `${num(v / 1000, 1)}`;
    return [html`<strong>${name}</strong> <span class="muted">${metricLabels[name]}${m.unit === 'millitokens_per_s' ? ' (tok/s)' : ''}</span>`, ...percentileKeys.map((k) => f(m.percentiles[k])), f(m.max), f(m.mean), num(m.count, 0)];
  });
  return section('Latency percentiles', simpleTable(['metric', ...percentileKeys, 'max', 'mean', 'samples'], rows, [1, 2, 3, 4, 5, 6, 7, 8]), 'percentiles');
}

function distribution(name: 'ttft' | 'itl' | 'e2e', r: LoadResult): Html {
  const m = r.metrics[name];
  const title = metricLabels[name];
  if (m === undefined) return histogramChart({ title: `${name.toUpperCase()}: ${title}`, bins: [], xLabel: 'ms' });
  const markers = [
    { value: m.percentiles.p50 / 1000, label: 'p50' },
    { value: m.percentiles.p99 / 1000, label: 'p99' },
  ];
  return html`${histogramChart({ title: `${name.toUpperCase()} distribution (${num(m.count, 0)} samples)`, bins: binsFromHdr(m), xLabel: `${title} (ms; beyond p99.9 in the last bar)`, format: ms, percentiles: markers })}${cdfChart({
    title: `${name.toUpperCase()} CDF`,
    points: cdfFromHdr(m),
    xLabel: `${title} (ms)`,
    format: ms,
    percentiles: markers,
  })}`;
}

/**
 * Stretches of whole seconds in which no request succeeded (a server that went away, a stall): each
 * is [first, last] second. Seconds with no slice at all (nothing started or finished) count too.
 */
export function outageSeconds(slices: readonly Timeslice[]): [number, number][] {
  if (slices.length === 0) return [];
  const byS = new Map(slices.map((s) => [s.tS, s]));
  const first = Math.min(...byS.keys());
  const last = Math.max(...byS.keys());
  const out: [number, number][] = [];
  for (let t = first; t <= last; t++) {
    if ((byS.get(t)?.ok ?? 0) > 0) continue;
    const open = out.at(-1);
    if (open !== undefined && open[1] === t - 1) open[1] = t;
    else out.push([t, t]);
  }
  return out;
}

/** The slices with the seconds that have none filled in with zero counts (so a stall shows as a dip to zero). */
function everySecond(slices: readonly Timeslice[]): Timeslice[] {
  const t = [...slices].sort((a, b) => a.tS - b.tS);
  const out: Timeslice[] = [];
  for (const s of t) {
    const prev = out.at(-1);
    for (let k = prev === undefined ? s.tS : prev.tS + 1; k < s.tS; k++) {
      out.push({ ...s, epochS: s.epochS - (s.tS - k), tS: k, started: 0, finished: 0, ok: 0, failed: 0, outputTokens: 0, inFlight: prev?.inFlight ?? 0, ttftP50Us: null, ttftP99Us: null, e2eP50Us: null, e2eP99Us: null, itlP99Us: null });
    }
    out.push(s);
  }
  return out;
}

function overTimeSection(r: LoadResult): Html {
  const t: Timeslice[] = everySecond(r.timeslices);
  const gaps = outageSeconds(t);
  const series = (name: string, f: (s: Timeslice) => number | null, tone?: 'good' | 'bad') => ({
    name,
    ...(tone === undefined ? {} : { tone }),
    points: t.flatMap((s) => {
      const y = f(s);
      return y === null ? [] : [{ x: s.tS, y }];
    }),
  });
  const ttftSlo = r.slos.find((s) => s.metric === 'ttft' && s.unit === 'us');
  return section(
    'Over time',
    html`<div class="charts">${lineChart({
      title: 'Requests per second',
      series: [series('started', (s) => s.started), series('ok', (s) => s.ok, 'good'), series('failed', (s) => s.failed, 'bad')],
      xLabel: 'time (s)',
      yLabel: 'requests/s',
    })}${lineChart({
      title: 'Output tokens per second',
      series: [series('output tokens/s', (s) => s.outputTokens)],
      xLabel: 'time (s)',
      yLabel: 'tokens/s',
    })}${lineChart({
      title: 'Latency of requests finishing each second',
      series: [
        series('TTFT p50', (s) => (s.ttftP50Us === null ? null : s.ttftP50Us / 1000)),
        series('TTFT p99', (s) => (s.ttftP99Us === null ? null : s.ttftP99Us / 1000)),
        series('ITL p99', (s) => (s.itlP99Us === null ? null : s.itlP99Us / 1000)),
      ],
      xLabel: 'time (s)',
      yLabel: 'ms',
      yFormat: ms,
      // Seconds in which nothing finished have no latency: the line breaks there instead of bridging the gap.
      breakOver: 1,
      ...(ttftSlo === undefined ? {} : { thresholds: [{ value: ttftSlo.threshold / 1000, label: `SLO ${ttftSlo.expr}` }] }),
    })}${lineChart({
      title: 'In flight at the end of each second',
      series: [series('in flight', (s) => s.inFlight)],
      xLabel: 'time (s)',
      yLabel: 'requests',
    })}</div>${
      gaps.length === 0
        ? ''
        : html`<p class="note">No request succeeded during ${gaps.map(([a, b]) => (a === b ? `second ${a}` : `seconds ${a}–${b}`)).join(', ')} (${gaps.reduce((n, [a, b]) => n + b - a + 1, 0)} s in all): the gap in the charts above.</p>`
    }`,
    'over-time',
  );
}

function sweepSection(r: LoadResult): Html | '' {
  const sweep = r.sweep;
  if (sweep === null) return '';
  const unit = sweep.kind === 'rate' ? 'rate (req/s)' : 'concurrency';
  const ttftSlo = r.slos.find((s) => s.metric === 'ttft' && s.unit === 'us');
  const chart = sweepChart({
    title: `TTFT p95 by ${unit}`,
    points: sweep.steps.flatMap((s) =>
      s.ttftP95Us === null
        ? []
        : [
            {
              x: s.level,
              y: s.ttftP95Us / 1000,
              ok: s.slosMet,
              tip: `${unit}: ${s.level}\nachieved ${num(s.achievedRps, 2)} req/s\nTTFT p95 ${formatUs(s.ttftP95Us)}\ngoodput ${num(s.goodputRps, 2)}/s\nerrors ${pct(s.errorRate)}\n${s.slosMet ? 'meets SLOs' : 'breaks SLOs'}${s.saturated ? ', saturated' : ''}`,
            },
          ],
    ),
    xLabel: unit,
    yLabel: 'TTFT p95 (ms)',
    yFormat: ms,
    ...(ttftSlo === undefined ? {} : { slo: { value: ttftSlo.threshold / 1000, label: `SLO ${ttftSlo.expr}` } }),
    ...(sweep.best === null ? {} : { best: { value: sweep.best, label: `best ${sweep.best}` } }),
  });
  const rows = sweep.steps.map((s) => [
    String(s.level),
    num(s.achievedRps, 2),
    num(s.outputTokensPerS, 0),
    formatUs(s.ttftP95Us),
    formatUs(s.itlP99Us),
    pct(s.errorRate),
    num(s.goodputRps, 2),
    badge(s.slosMet ? 'met' : 'breached', s.slosMet ? 'good' : 'bad'),
    s.saturated ? 'yes' : 'no',
  ]);
  return section(
    'Sweep',
    html`<p>Highest ${sweep.kind} meeting every SLO: <strong>${sweep.best === null ? 'none' : String(sweep.best)}</strong>${capacityNote(sweep)} (stopped: ${sweep.stopReason.replace(/_/g, ' ')}).</p><div class="charts">${chart}${paretoCharts(r)}</div>${simpleTable(
      [sweep.kind, 'achieved req/s', 'output tok/s', 'TTFT p95', 'ITL p99', 'errors', 'goodput/s', 'SLOs', 'saturated'],
      rows,
      [0, 1, 2, 3, 4, 5, 6],
    )}`,
    'sweep',
  );
}

function errorsSection(r: LoadResult): Html {
  const e = r.errors;
  if (e.total === 0) return section('Errors', html`<p class="muted">No request failed. Every stream was checked by the strict SSE reader.</p>`, 'errors');
  const classRows = errorClasses.filter((c: ErrorClass) => e.byClass[c] > 0).map((c: ErrorClass) => [c, num(e.byClass[c], 0), pct(e.total === 0 ? 0 : e.byClass[c] / e.total)]);
  const detailRows = [
    ...Object.entries(e.byStatus).map(([status, n]) => [`HTTP ${status}`, num(n, 0)]),
    ...Object.entries(e.byFinding).map(([finding, n]) => [finding, num(n, 0)]),
  ];
  return section(
    `Errors (${num(e.total, 0)}, ${pct(e.rate)})`,
    html`<div class="charts">${simpleTable(['class', 'requests', 'share'], classRows, [1, 2])}${detailRows.length === 0 ? '' : simpleTable(['status / stream finding', 'requests'], detailRows, [1])}</div>
${e.examples.length === 0 ? '' : html`<h3>Examples</h3>${simpleTable(['class', 'detail', 'x-request-id'], e.examples.map((x) => [x.class, x.detail, html`<code>${x.requestId ?? '–'}</code>`]))}`}`,
    'errors',
  );
}

const css = `
.status{font-size:16px;font-weight:650;margin:0 0 12px;padding:8px 12px;border-radius:8px}
.status-good{color:var(--good);background:var(--good-bg)}.status-bad{color:var(--bad);background:var(--bad-bg)}
.status-warn{color:var(--warn);background:var(--warn-bg)}.status-neutral{color:var(--muted);background:var(--muted-bg)}
.charts>table{align-self:start}
nav.toc{display:flex;flex-wrap:wrap;gap:14px;font-size:13px;margin:6px 0 0}
`;

export function renderLoadReport(r: LoadResult, sections: readonly AnySection[] = defaultLoadSections, records: readonly AnyRunRecord[] = loadRunRecords): string {
  const tiles = sectionTiles(sections, r as unknown as SectionResult);
  const lacks = notApplicable(sections, r as unknown as SectionResult);
  // The sections that read the run's seconds go after the over-time charts, each with its TOC link.
  const endTiles = sectionTiles(sections, r as unknown as SectionResult, 'end');
  const toc = html`<nav class="toc"><a href="#summary">Summary</a>${abSection(r) === '' ? '' : html`<a href="#ab">A/B</a>`}<a href="#slos">SLOs</a><a href="#percentiles">Percentiles</a><a href="#distributions">Distributions</a><a href="#over-time">Over time</a>${endTiles.map((t) => (t.toc === undefined ? '' : html`<a href="#${t.id}">${t.toc}</a>`))}${r.sweep === null ? '' : html`<a href="#sweep">Sweep</a>`}<a href="#errors">Errors</a></nav>`;
  const warnings = r.validity.warnings.length === 0 ? '' : section('Warnings', html`<ul>${r.validity.warnings.map((w) => html`<li>${w}</li>`)}</ul>`, 'warnings');
  const body = html`${summarySection(r, tiles, sections, records)}${abSection(r)}${warnings}${sloSection(r)}${percentileSection(r)}${section(
    'Distributions',
    !lacks.has('ttft')
      ? html`<div class="charts">${distribution('ttft', r)}${distribution('itl', r)}</div>`
      : html`<p class="muted">${[...lacks].join(', ')} not applicable (an answer arrives whole and generates no tokens); end-to-end latency instead.</p><div class="charts">${distribution('e2e', r)}</div>`,
    'distributions',
  )}${workloadSections(r, sections)}${overTimeSection(r)}${endTiles.map(tileCard)}${sweepSection(r)}${errorsSection(r)}${sectionTiles(sections, r as unknown as SectionResult, 'outcome').map(tileCard)}`;
  return renderPage({
    title: 'iari load report',
    subtitle: html`${r.meta.baseUrl} · ${modeText(r)} · ${r.meta.startedAt} · run ${r.meta.runId}${toc}`,
    body,
    css,
    generator: `iari ${r.meta.tool.version}`,
  });
}

/** The load report page with the run's secrets scrubbed (both redaction layers). */
export function loadHtml(result: LoadResult, redactor?: Redactor): string {
  return sanitize(renderLoadReport(redactor === undefined ? result : redactor.value(result)), redactor);
}
