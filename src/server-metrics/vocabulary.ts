// One vocabulary over the engines' own metric names. Each name below is read from the engine's source
// at a pinned commit (docs/server-metrics.md has the table and the commits). Counters are read with or
// without the `_total` suffix (prometheus_client adds it; the Rust exporter of TGI does not). A value is
// the sum over every label set (vLLM's engine index, finished_reason, model_name), except KV-cache usage,
// the fullest engine's.
import type { Exposition, Sample } from './prom-text.ts';

export type Engine = 'vllm' | 'sglang' | 'tgi' | 'llamacpp';
export const engines: readonly Engine[] = ['vllm', 'sglang', 'tgi', 'llamacpp'];

export const gaugeKeys = ['running', 'waiting', 'kvCacheUsage'] as const;
export const counterKeys = ['promptTokens', 'generatedTokens', 'cachedTokens', 'requestsFinished', 'preemptions'] as const;
export const histogramKeys = ['ttft', 'queueTime'] as const;
export type GaugeKey = (typeof gaugeKeys)[number];
export type CounterKey = (typeof counterKeys)[number];
export type HistogramKey = (typeof histogramKeys)[number];

/** A Prometheus histogram (seconds): cumulative counts at each upper bound, +Inf last. */
export interface BucketHistogram {
  bounds: number[];
  cumulative: number[];
  sum: number;
  count: number;
}

/**
 * Where a vocabulary value comes from: counters and gauges name samples (the first name present wins;
 * `plus` names are added, as llama.cpp's prompt counter leaves out the cached tokens); `histogramSum`
 * reads a histogram's _sum (TGI counts tokens only per request); histograms name the family.
 */
export interface Source {
  names: readonly string[];
  plus?: readonly string[];
  histogramSum?: boolean;
  note?: string;
}

export type EngineMap = Partial<Record<GaugeKey | CounterKey | HistogramKey, Source>>;

export const vocabulary: Record<Engine, EngineMap> = {
  vllm: {
    running: { names: ['vllm:num_requests_running'] },
    waiting: { names: ['vllm:num_requests_waiting'] },
    kvCacheUsage: { names: ['vllm:kv_cache_usage_perc', 'vllm:gpu_cache_usage_perc'], note: 'gpu_cache_usage_perc before 0.9' },
    promptTokens: { names: ['vllm:prompt_tokens'] },
    generatedTokens: { names: ['vllm:generation_tokens'] },
    cachedTokens: { names: ['vllm:prefix_cache_hits', 'vllm:gpu_prefix_cache_hits'], note: 'prefix-cache hits in tokens' },
    requestsFinished: { names: ['vllm:request_success'], note: 'summed over finished_reason' },
    preemptions: { names: ['vllm:num_preemptions'] },
    ttft: { names: ['vllm:time_to_first_token_seconds'] },
    queueTime: { names: ['vllm:request_queue_time_seconds'] },
  },
  sglang: {
    running: { names: ['sglang:num_running_reqs'] },
    waiting: { names: ['sglang:num_queue_reqs'] },
    kvCacheUsage: { names: ['sglang:token_usage'] },
    promptTokens: { names: ['sglang:prompt_tokens'] },
    generatedTokens: { names: ['sglang:generation_tokens'] },
    cachedTokens: { names: ['sglang:cached_tokens'] },
    requestsFinished: { names: ['sglang:num_requests'] },
    preemptions: { names: ['sglang:num_retracted_requests'], note: 'retractions' },
    ttft: { names: ['sglang:time_to_first_token_seconds'] },
    queueTime: { names: ['sglang:queue_time_seconds'] },
  },
  tgi: {
    running: { names: ['tgi_batch_current_size'] },
    waiting: { names: ['tgi_queue_size'] },
    promptTokens: { names: ['tgi_request_input_length'], histogramSum: true, note: 'sum of the per-request histogram' },
    generatedTokens: { names: ['tgi_request_generated_tokens'], histogramSum: true, note: 'sum of the per-request histogram' },
    requestsFinished: { names: ['tgi_request_success'] },
    queueTime: { names: ['tgi_request_queue_duration'] },
  },
  llamacpp: {
    running: { names: ['llamacpp:requests_processing'] },
    waiting: { names: ['llamacpp:requests_deferred'] },
    promptTokens: { names: ['llamacpp:prompt_tokens'], plus: ['llamacpp:prompt_tokens_cached'], note: 'prompt_tokens_total excludes cached tokens: both added' },
    generatedTokens: { names: ['llamacpp:tokens_predicted'] },
    cachedTokens: { names: ['llamacpp:prompt_tokens_cached'] },
  },
};

export interface ServerReading {
  engine: Engine | null;
  gauges: Partial<Record<GaugeKey, number>>;
  counters: Partial<Record<CounterKey, number>>;
  histograms: Partial<Record<HistogramKey, BucketHistogram>>;
  /** Sample names the vocabulary read (the rest are kept raw). */
  mapped: ReadonlySet<string>;
}

/** Samples by name, built once per scrape. */
export function indexSamples(e: Exposition): Map<string, Sample[]> {
  const byName = new Map<string, Sample[]>();
  for (const f of e.families.values()) {
    for (const s of f.samples) {
      const list = byName.get(s.name);
      if (list === undefined) byName.set(s.name, [s]);
      else list.push(s);
    }
  }
  return byName;
}

/** The engine whose names the exposition carries (most mapped names), or null. */
export function detectEngine(byName: ReadonlyMap<string, readonly Sample[]>): Engine | null {
  let best: Engine | null = null;
  let bestHits = 0;
  for (const engine of engines) {
    const hits = Object.values(vocabulary[engine]).filter((src) => src.names.some((n) => counterSamples(byName, n) !== undefined || byName.has(`${n}_count`) || byName.has(n))).length;
    if (hits > bestHits) {
      best = engine;
      bestHits = hits;
    }
  }
  return best;
}

const counterSamples = (byName: ReadonlyMap<string, readonly Sample[]>, n: string): readonly Sample[] | undefined => byName.get(`${n}_total`) ?? byName.get(n);
const sum = (samples: readonly Sample[]): number => samples.reduce((a, s) => a + s.value, 0);

export function readVocabulary(byName: ReadonlyMap<string, readonly Sample[]>, engine: Engine | null = detectEngine(byName)): ServerReading {
  const mapped = new Set<string>();
  const reading: ServerReading = { engine, gauges: {}, counters: {}, histograms: {}, mapped };
  if (engine === null) return reading;
  const map = vocabulary[engine];
  const scalar = (src: Source, counter: boolean, max: boolean): number | undefined => {
    for (const n of src.names) {
      if (src.histogramSum === true) {
        const h = byName.get(`${n}_sum`);
        if (h === undefined) continue;
        mapped.add(`${n}_sum`);
        return sum(h);
      }
      const name = counter ? (byName.has(`${n}_total`) ? `${n}_total` : n) : n;
      const samples = byName.get(name);
      if (samples === undefined) continue;
      mapped.add(name);
      let v = max ? Math.max(...samples.map((s) => s.value)) : sum(samples);
      for (const p of src.plus ?? []) {
        const extra = counterSamples(byName, p);
        if (extra !== undefined) v += sum(extra);
      }
      return v;
    }
    return undefined;
  };
  for (const k of gaugeKeys) {
    const src = map[k];
    const v = src === undefined ? undefined : scalar(src, false, k === 'kvCacheUsage');
    if (v !== undefined && Number.isFinite(v)) reading.gauges[k] = v;
  }
  for (const k of counterKeys) {
    const src = map[k];
    const v = src === undefined ? undefined : scalar(src, true, false);
    if (v !== undefined && Number.isFinite(v)) reading.counters[k] = v;
  }
  for (const k of histogramKeys) {
    const src = map[k];
    if (src === undefined) continue;
    for (const n of src.names) {
      const h = readHistogram(byName, n);
      if (h === null) continue;
      for (const part of ['_bucket', '_sum', '_count']) mapped.add(`${n}${part}`);
      reading.histograms[k] = h;
      break;
    }
  }
  return reading;
}

/** A histogram family summed over its label sets (bucket by bucket, on the bounds they share). */
export function readHistogram(byName: ReadonlyMap<string, readonly Sample[]>, name: string): BucketHistogram | null {
  const buckets = byName.get(`${name}_bucket`);
  const sums = byName.get(`${name}_sum`);
  const counts = byName.get(`${name}_count`);
  if (buckets === undefined || counts === undefined) return null;
  const byBound = new Map<number, number>();
  for (const b of buckets) {
    const le = b.labels['le'];
    const bound = le === '+Inf' ? Infinity : Number(le);
    if (le === undefined || Number.isNaN(bound) || !Number.isFinite(b.value)) continue;
    byBound.set(bound, (byBound.get(bound) ?? 0) + b.value);
  }
  const bounds = [...byBound.keys()].sort((a, b) => a - b);
  return { bounds, cumulative: bounds.map((x) => byBound.get(x) ?? 0), sum: sums === undefined ? NaN : sum(sums), count: sum(counts) };
}

/** b − a, bucket by bucket (a histogram of what was observed between two scrapes), or null when their bounds differ. */
export function histogramDelta(a: BucketHistogram, b: BucketHistogram): BucketHistogram | null {
  if (a.bounds.length !== b.bounds.length || a.bounds.some((x, i) => x !== b.bounds[i])) return null;
  return { bounds: [...b.bounds], cumulative: b.cumulative.map((c, i) => c - (a.cumulative[i] ?? 0)), sum: b.sum - a.sum, count: b.count - a.count };
}

/** The bucket holding quantile q (0..1): its bounds, as the server's histogram cannot say more. */
export function quantileBucket(h: BucketHistogram, q: number): { low: number; high: number } | null {
  if (h.count <= 0) return null;
  const rank = q * h.count;
  for (let i = 0; i < h.bounds.length; i++) {
    if ((h.cumulative[i] ?? 0) >= rank) return { low: i === 0 ? 0 : (h.bounds[i - 1] ?? 0), high: h.bounds[i] ?? Infinity };
  }
  return null;
}
