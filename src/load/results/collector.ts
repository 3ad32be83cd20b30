import { monitorEventLoopDelay, type ELDHistogram } from 'node:perf_hooks';
import { decodeHistogram, encodeHistogram, newHistogram, percentileOrNull, record, summarize, type Histogram } from './hdr.ts';
import {
  errorClasses,
  type ErrorClass,
  type ErrorSummary,
  type MetricName,
  type RequestRecord,
  type Timeslice,
} from './load-result.ts';
import type { RequestTiming } from './request-timing.ts';
import { requestIsGood, type RequestValues, type Slo } from './slo.ts';
import { firstAnswerUs } from './reasoning-report.ts';
import type { Requested } from '../workloads/workload.ts';
import { SectionAccumulators } from '../../sections/section-run.ts';
import { addCounts, zeroCounts } from '../../sections/counts.ts';
import type { AnySection } from '../../sections/section-contract.ts';
import { loadSections } from './load-sections.ts';

export interface CollectorOptions {
  /** hrtime ns at which the measured window starts (warmup ends). */
  measureStartNs: bigint;
  /** Epoch ms at the same instant (performance.timeOrigin + performance.now()). */
  measureStartEpochMs: number;
  openLoop: boolean;
  slos: readonly Slo[];
  shard: number | null;
  /** What request `seq` asked for (token-length workloads), for the asked-versus-received report. */
  requested?: (seq: number) => Requested;
  /** The result sections the run collects (load-sections.ts; default: loadSections() without run options). */
  sections?: readonly AnySection[];
  /** Receives one line per request (requests.ndjson), warmup included with phase "warmup". */
  onRecord?: (record: RequestRecord, timing: RequestTiming) => void;
}

const sliceCounts = ['started', 'finished', 'ok', 'failed', 'outputTokens', 'inFlight'] as const;

/** One second's counts (as in its Timeslice) with live histograms. */
interface SliceAcc extends Pick<Timeslice, 'started' | 'finished' | 'ok' | 'failed' | 'outputTokens' | 'inFlight'> {
  ttft: Histogram;
  e2e: Histogram;
  itl: Histogram;
}

const us = (ns: bigint): number => Number(ns) / 1000;

/** Records finished requests into HDR histograms, per-second slices, error classes and goodput. */
export class Collector {
  readonly hist: Record<MetricName, Histogram>;
  readonly errorsByClass: Record<ErrorClass, number>;
  readonly byStatus: Record<string, number> = {};
  readonly byFinding: Record<string, number> = {};
  readonly examples: ErrorSummary['examples'] = [];
  started = 0;
  finished = 0;
  ok = 0;
  failed = 0;
  good = 0;
  warmup = 0;
  abortedAtEnd = 0;
  outputTokens = 0;
  promptTokens = 0;
  events = 0;
  inFlight = 0;
  readonly tokenSources = new Set<'usage' | 'tokenizer'>();
  /** The result sections' accumulators (src/sections/): each sees every measured request. */
  readonly sections: SectionAccumulators;
  readonly #slices = new Map<number, SliceAcc>();
  readonly #frozen = new Map<number, Timeslice>();
  #newest = -Infinity;
  readonly #o: CollectorOptions;
  #eld: ELDHistogram | undefined;
  #eldTimer: NodeJS.Timeout | undefined;

  constructor(o: CollectorOptions) {
    this.#o = o;
    this.sections = new SectionAccumulators(o.sections ?? loadSections());
    this.hist = {} as Record<MetricName, Histogram>;
    for (const m of ['ttfb', 'ttft', 'itl', 'tpot', 'e2e', 'service_ttft', 'service_e2e', 'schedule_lag', 'event_loop_lag', 'output_tps', 'server_ttft'] as const) {
      this.hist[m] = newHistogram();
    }
    this.errorsByClass = Object.fromEntries(errorClasses.map((c) => [c, 0])) as Record<ErrorClass, number>;
  }

  /** Samples client event-loop delay (perf_hooks, 1 ms resolution) into the event_loop_lag histogram once a second. */
  startEventLoopMonitor(): void {
    this.#eld = monitorEventLoopDelay({ resolution: 1 });
    this.#eld.enable();
    this.#eldTimer = setInterval(() => this.#drainEventLoop(), 1000);
    this.#eldTimer.unref();
  }

  stopEventLoopMonitor(): void {
    if (this.#eldTimer !== undefined) clearInterval(this.#eldTimer);
    this.#drainEventLoop();
    this.#eld?.disable();
    this.#eld = undefined;
  }

  /**
   * The perf_hooks histogram exposes its distribution as percentile points; each point carries
   * the share of samples between it and the previous point, recorded at its value in µs.
   */
  #drainEventLoop(): void {
    const eld = this.#eld;
    if (eld === undefined || eld.count === 0) return;
    let prev = 0;
    const total = eld.count;
    for (const [p, ns] of eld.percentiles) {
      const n = Math.round(((p - prev) / 100) * total);
      if (n > 0) record(this.hist.event_loop_lag, ns / 1000, n);
      prev = p;
    }
    eld.reset();
  }

  isWarmup(intendedNs: bigint): boolean {
    return intendedNs < this.#o.measureStartNs;
  }

  /** A request was sent (or, open loop, was due); counted in the slice of its intended time. */
  onStart(intendedNs: bigint): void {
    if (this.isWarmup(intendedNs)) return;
    this.started++;
    this.inFlight++;
    // A late arrival's second may be frozen already: its counts change in place.
    const frozen = this.#frozen.get(this.#epochS(intendedNs));
    if (frozen === undefined) this.#slice(intendedNs).started++;
    else {
      frozen.started++;
      frozen.inFlight = this.inFlight;
    }
  }

  /** The requests.ndjson line of a request that is no sample (aborted at the end, or cut by the client): its head and stamps only. */
  #unsampled(t: RequestTiming, phase: RequestRecord['phase'], ttftNs: bigint | null, extra: Partial<RequestRecord> = {}): void {
    const rel = (ns: bigint | null): number | null => (ns === null ? null : Math.round(us(ns - this.#o.measureStartNs)));
    this.#o.onRecord?.(
      {
        seq: t.seq,
        shard: this.#o.shard,
        phase,
        requestId: t.requestId,
        status: t.status,
        intendedUs: rel(t.intendedNs) ?? 0,
        sentUs: rel(t.sentNs) ?? 0,
        ttfbUs: t.headersNs === null ? null : Math.round(us(t.headersNs - t.intendedNs)),
        ttftUs: ttftNs === null ? null : Math.round(us(ttftNs - t.intendedNs)),
        e2eUs: null,
        outputTokens: 0,
        tokenSource: 'none',
        events: t.events,
        itlMeanUs: null,
        itlMaxUs: null,
        tpotUs: null,
        error: null,
        ...retried(t, rel),
        ...extra,
        good: false,
      },
      t,
    );
  }

  /** A request still in flight when the run stopped: neither an error nor a sample. */
  onAborted(t: RequestTiming): void {
    this.#unsampled(t, 'aborted', null);
    if (this.isWarmup(t.intendedNs)) return;
    this.sections.collect({ outcome: 'aborted', timing: t, ttftUs: null, e2eUs: null, asked: this.#o.requested?.(t.seq) ?? null });
    this.abortedAtEnd++;
    this.inFlight--;
  }

  /**
   * A request the client cut (--cancel-rate): counted apart, never an error and never a sample, so
   * the latency percentiles, the error rate and goodput are over the requests that were not cut.
   */
  onCancelled(t: RequestTiming): void {
    const cut = t.cancelled;
    if (cut === undefined) return;
    const warm = this.isWarmup(t.intendedNs);
    // Its first token, when one came before the cut: never a TTFT sample, but the server timed it (server-section.ts reconciles them).
    const asked = this.#o.requested?.(t.seq);
    // A cut turn ends its conversation (conversation-engine.ts): its line says which.
    const turn = asked?.turn === undefined ? {} : { turn: asked.turn + 1, conversation: asked.conversation ?? 0 };
    this.#unsampled(t, warm ? 'warmup' : 'cancelled', t.tokenEvents[0]?.atNs ?? null, { cancelled: { atUs: Math.round(us(cut.atNs - this.#o.measureStartNs)), tokens: cut.tokens }, ...turn });
    if (warm) {
      this.warmup++;
      return;
    }
    const first = t.tokenEvents[0];
    this.sections.collect({ outcome: 'cancelled', timing: t, ttftUs: first === undefined ? null : us(first.atNs - t.intendedNs), e2eUs: null, asked: asked ?? null, cut: { afterUs: us(cut.atNs - t.sentNs), tokens: cut.tokens } });
    this.inFlight--;
  }

  onFinish(t: RequestTiming): void {
    // Sent during warmup but still in flight at the end for the whole window: a measured timeout (docs/load.md).
    const warm = this.isWarmup(t.intendedNs) && t.timedOutAtEnd !== true;
    if (t.timedOutAtEnd === true && this.isWarmup(t.intendedNs)) {
      this.started++;
      this.inFlight++;
    }
    const endNs = t.endNs ?? t.sentNs;
    const origin = t.intendedNs;
    const first = t.tokenEvents[0];
    const last = t.tokenEvents.findLast((e) => e.tokens > 0);
    const ttfb = t.headersNs === null ? null : us(t.headersNs - origin);
    const ttft = first === undefined ? null : us(first.atNs - origin);
    const e2e = us(endNs - origin);
    const tokens = t.outputTokens;
    // Needs two token-bearing events (a whole, non-streamed answer has no per-token timing).
    const tpot = first !== undefined && last !== undefined && last !== first && tokens > 1 ? us(last.atNs - first.atNs) / (tokens - 1) : null;
    let itlSum = 0;
    let itlN = 0;
    let itlMax: number | null = null;
    const ok = t.error === null;
    const asked = this.#o.requested?.(t.seq) ?? null;
    const values: RequestValues = { ttfb, ttft, itl: null, tpot, e2e };
    let ttfo: number | null = null;
    if (!warm) {
      const slice = this.#slice(endNs);
      slice.finished++;
      this.finished++;
      this.inFlight--;
      this.events += t.events;
      if (ok) {
        slice.ok++;
        this.ok++;
        this.outputTokens += tokens;
        this.promptTokens += t.promptTokens;
        if (t.reasoningTokens !== undefined) ttfo = firstAnswerUs(t.tokenEvents, origin);
        slice.outputTokens += tokens;
        if (t.tokenSource !== 'none') this.tokenSources.add(t.tokenSource);
        if (ttfb !== null) record(this.hist.ttfb, ttfb);
        if (ttft !== null) {
          record(this.hist.ttft, ttft);
          record(slice.ttft, ttft);
        }
        record(this.hist.e2e, e2e);
        record(slice.e2e, e2e);
        if (tpot !== null) record(this.hist.tpot, tpot);
        if (t.extras?.serverPrefillMs !== undefined) record(this.hist.server_ttft, t.extras.serverPrefillMs * 1000);
        // D-LOAD-03: a chunk of k tokens arriving g after the previous token-bearing chunk is k tokens of g/k each.
        let prev = t.tokenEvents[0];
        for (let i = 1; i < t.tokenEvents.length; i++) {
          const ev = t.tokenEvents[i];
          if (ev === undefined || prev === undefined || ev.tokens === 0) continue;
          const per = us(ev.atNs - prev.atNs) / ev.tokens;
          prev = ev;
          record(this.hist.itl, per, ev.tokens);
          record(slice.itl, per, ev.tokens);
          itlSum += per * ev.tokens;
          itlN += ev.tokens;
          if (itlMax === null || per > itlMax) itlMax = per;
        }
        if (tokens > 0 && e2e > 0) record(this.hist.output_tps, (tokens / (e2e / 1e6)) * 1000);
        if (this.#o.openLoop) {
          if (first !== undefined) record(this.hist.service_ttft, us(first.atNs - t.sentNs));
          record(this.hist.service_e2e, us(endNs - t.sentNs));
        }
      } else {
        slice.failed++;
        this.failed++;
        this.#countError(t);
      }
      if (this.#o.openLoop) record(this.hist.schedule_lag, us(t.sentNs - t.intendedNs));
      this.sections.collect({ outcome: ok ? 'ok' : 'failed', timing: t, ttftUs: ttft, e2eUs: e2e, asked });
      values.itl = itlN > 0 ? itlSum / itlN : null;
    } else {
      this.warmup++;
    }
    const good = !warm && requestIsGood(this.#o.slos, ok, values);
    if (good) this.good++;
    const onRecord = this.#o.onRecord;
    if (onRecord !== undefined) {
      const rel = (ns: bigint | null): number | null => (ns === null ? null : Math.round(us(ns - this.#o.measureStartNs)));
      const r1 = (x: number | null): number | null => (x === null ? null : Math.round(x));
      onRecord(
        {
          seq: t.seq,
          shard: this.#o.shard,
          phase: warm ? 'warmup' : 'measure',
          requestId: t.requestId,
          status: t.status,
          intendedUs: rel(t.intendedNs) ?? 0,
          sentUs: rel(t.sentNs) ?? 0,
          ttfbUs: r1(ttfb),
          ttftUs: r1(ttft),
          e2eUs: r1(e2e),
          outputTokens: tokens,
          tokenSource: t.tokenSource,
          promptTokens: t.promptTokens,
          ...(t.extras?.cachedTokens == null ? {} : { cachedTokens: t.extras.cachedTokens }),
          ...(typeof t.extras?.counters?.['inputs'] === 'number' ? { inputs: t.extras.counters['inputs'] } : {}),
          ...(t.reasoningTokens === undefined ? {} : { reasoningTokens: t.reasoningTokens, ttfoUs: r1(ttfo) }),
          ...(asked === null ? {} : { requested: { prompt: asked.prompt, output: asked.output } }),
          ...(asked?.turn === undefined ? {} : { turn: asked.turn + 1, conversation: asked.conversation ?? 0 }),
          events: t.events,
          itlMeanUs: r1(values.itl),
          itlMaxUs: r1(itlMax),
          tpotUs: r1(tpot),
          error: t.error === null ? null : { class: t.error.class, detail: t.error.detail },
          ...retried(t, rel),
          good,
        },
        t,
      );
    }
  }

  #countError(t: RequestTiming): void {
    const e = t.error;
    if (e === null) return;
    this.errorsByClass[e.class]++;
    if (e.class === 'http_status' && t.status !== null) this.byStatus[String(t.status)] = (this.byStatus[String(t.status)] ?? 0) + 1;
    if (e.class === 'stream_nonconforming') {
      const f = e.finding ?? 'unknown';
      this.byFinding[f] = (this.byFinding[f] ?? 0) + 1;
    }
    if (this.examples.length < 20) this.examples.push({ class: e.class, detail: e.detail, requestId: t.requestId });
  }

  #epochS(ns: bigint): number {
    return Math.floor((this.#o.measureStartEpochMs + Number(ns - this.#o.measureStartNs) / 1e6) / 1000);
  }

  #slice(ns: bigint): SliceAcc {
    const key = this.#epochS(ns);
    let s = this.#slices.get(key);
    if (s === undefined) {
      const frozen = this.#frozen.get(key);
      s = frozen === undefined ? { ...zeroCounts(sliceCounts), ttft: newHistogram(), e2e: newHistogram(), itl: newHistogram() } : thaw(frozen);
      this.#frozen.delete(key);
      this.#slices.set(key, s);
      if (key > this.#newest) {
        this.#newest = key;
        this.#freezeBefore(key - LIVE_SLICES);
      }
    }
    s.inFlight = this.inFlight;
    return s;
  }

  /**
   * Issue 43 (soak runs): a live slice holds three auto-sized HDR histograms (about 80 KiB of
   * array buffers), so a day of them would be 7 GB. Seconds behind the newest are kept encoded
   * (load.json's own form, a few hundred bytes) and thawed only if a late request lands in one.
   */
  #freezeBefore(key: number): void {
    for (const [k, s] of this.#slices) {
      if (k >= key) continue;
      this.#frozen.set(k, sliceOut(k, 0, s));
      this.#slices.delete(k);
    }
  }

  errorSummary(): ErrorSummary {
    return {
      total: this.failed,
      rate: this.finished === 0 ? 0 : this.failed / this.finished,
      byClass: { ...this.errorsByClass },
      byStatus: { ...this.byStatus },
      byFinding: { ...this.byFinding },
      examples: [...this.examples],
    };
  }

  timeslices(): Timeslice[] {
    const startS = this.#o.measureStartEpochMs / 1000;
    const live = [...this.#slices.entries()].map(([epochS, s]) => sliceOut(epochS, epochS - Math.floor(startS), s));
    const frozen = [...this.#frozen.values()].map((t) => ({ ...t, tS: t.epochS - Math.floor(startS) }));
    return [...live, ...frozen].sort((a, b) => a.epochS - b.epochS);
  }
}

/** requests.ndjson: when a request that lost a connection reuse race was sent again. */
function retried(t: RequestTiming, rel: (ns: bigint | null) => number | null): { retriedUs?: number } {
  const at = t.reuseRace === undefined ? null : rel(t.reuseRace.retriedNs);
  return at === null ? {} : { retriedUs: at };
}

/** Seconds behind the newest whose slices keep live histograms (a request is counted in the second it ends). */
const LIVE_SLICES = 3;

function thaw(t: Timeslice): SliceAcc {
  return { started: t.started, finished: t.finished, ok: t.ok, failed: t.failed, outputTokens: t.outputTokens, inFlight: t.inFlight, ttft: decodeHistogram(t.ttftHdr), e2e: decodeHistogram(t.e2eHdr), itl: decodeHistogram(t.itlHdr) };
}

function sliceOut(epochS: number, tS: number, s: SliceAcc): Timeslice {
  return {
    epochS,
    tS,
    started: s.started,
    finished: s.finished,
    ok: s.ok,
    failed: s.failed,
    outputTokens: s.outputTokens,
    inFlight: s.inFlight,
    ttftHdr: encodeHistogram(s.ttft),
    e2eHdr: encodeHistogram(s.e2e),
    itlHdr: encodeHistogram(s.itl),
    ttftP50Us: percentileOrNull(s.ttft, 50),
    ttftP99Us: percentileOrNull(s.ttft, 99),
    e2eP50Us: percentileOrNull(s.e2e, 50),
    e2eP99Us: percentileOrNull(s.e2e, 99),
    itlP99Us: percentileOrNull(s.itl, 99),
  };
}

/** Adds timeslices of several shards by epoch second; percentiles recomputed from merged histograms. */
export function mergeTimeslices(lists: readonly Timeslice[][], measureStartEpochMs: number): Timeslice[] {
  // One second's live histograms at a time (a day of them live would be 7 GB: see Collector#freezeBefore).
  const byS = new Map<number, Timeslice[]>();
  for (const list of lists)
    for (const t of list) {
      const same = byS.get(t.epochS);
      if (same === undefined) byS.set(t.epochS, [t]);
      else same.push(t);
    }
  const startS = Math.floor(measureStartEpochMs / 1000);
  return [...byS.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([epochS, ts]) => {
      const s: SliceAcc = { started: 0, finished: 0, ok: 0, failed: 0, outputTokens: 0, inFlight: 0, ttft: newHistogram(), e2e: newHistogram(), itl: newHistogram() };
      for (const t of ts) {
        addCounts(s, t, sliceCounts);
        s.ttft.add(decodeHistogram(t.ttftHdr));
        s.e2e.add(decodeHistogram(t.e2eHdr));
        s.itl.add(decodeHistogram(t.itlHdr));
      }
      return sliceOut(epochS, epochS - startS, s);
    });
}

export { summarize };
