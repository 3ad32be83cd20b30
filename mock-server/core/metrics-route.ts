// GET /metrics: the mock's own counters under vLLM's names (vllm-project/vllm vllm/v1/metrics/loggers.py,
// docs/server-metrics.md), exact, per mock instance: the ground truth iari load's reconciliation is
// tested against. Prompt and cached tokens count when a request is admitted, generated tokens and the
// finished request when it ends (what was really written), TTFT and queue time as the plan timed them.
// Three mock-only faults break them on purpose (load-side: `iari load --server-metrics` must catch them).
import type { FaultDefinition } from './fault-catalogue.ts';
import type { FullResponse } from './types.ts';
import { errorResponse, unknownUrl } from './http-errors.ts';

export const metricsFaultNames = ['undercount-generated', 'overcount-generated', 'counter-decreases'] as const;
export type MetricsFault = (typeof metricsFaultNames)[number];

const f = (name: string, breaks: string[], description: string): FaultDefinition => ({ name, kind: 'fault', breaks, description });

/** Faults of the catalogue (iari test's metrics row, spec METRICS-*): sent per request or set on the server. */
export const metricsRouteFaults: readonly FaultDefinition[] = [
  { ...f('metrics-missing', ['METRICS-001', 'METRICS-002', 'METRICS-003'], 'GET /metrics is not served: 404 unknown_url, as on a server without metrics (legal by default; fails under --expect metrics).'), expect: ['metrics'] },
  f('metrics-malformed', ['METRICS-001'], 'GET /metrics carries a sample line whose value is not a number.'),
  f('metrics-counter-decreases', ['METRICS-002'], 'Each read of GET /metrics serves vllm:prefix_cache_queries_total one lower than the read before.'),
  f('metrics-tokens-not-counted', ['METRICS-003'], 'Generated tokens are never added to vllm:generation_tokens_total.'),
];

/** vLLM's TTFT buckets and its request-latency buckets (queue time), seconds. */
const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0];
const QUEUE_BUCKETS = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0];
/** Tokens the KV cache of the latency model holds (usage = tokens of the running requests / this). */
const KV_CAPACITY_TOKENS = 65_536;

class Histogram {
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(readonly bounds: readonly number[]) {
    this.counts = bounds.map(() => 0);
  }
  observe(v: number): void {
    this.sum += v;
    this.count++;
    const i = this.bounds.findIndex((b) => v <= b);
    if (i !== -1) this.counts[i] = (this.counts[i] ?? 0) + 1;
  }
  lines(name: string, labels: string): string[] {
    let cumulative = 0;
    const out = [`# HELP ${name} Histogram of ${name.slice(5).replace(/_/g, ' ')}.`, `# TYPE ${name} histogram`];
    this.bounds.forEach((b, i) => {
      cumulative += this.counts[i] ?? 0;
      out.push(`${name}_bucket{${labels},le="${b}"} ${cumulative}`);
    });
    out.push(`${name}_bucket{${labels},le="+Inf"} ${this.count}`, `${name}_count{${labels}} ${this.count}`, `${name}_sum{${labels}} ${this.sum}`);
    return out;
  }
}

interface Running {
  serviceStartMs: number;
  tokens: number;
}

export class MockMetrics {
  readonly #faults: ReadonlySet<MetricsFault>;
  readonly #now: () => number;
  #prompt = 0;
  #generated = 0;
  #cacheQueries = 0;
  #cacheHits = 0;
  #success = { stop: 0, length: 0, abort: 0 };
  #reads = 0;
  readonly #ttft = new Histogram(TTFT_BUCKETS);
  readonly #queue = new Histogram(QUEUE_BUCKETS);
  readonly #running = new Map<string, Running>();
  /** Generations that go on after their client left (fault cancel-ignored): counted token by token as their schedule runs. */
  readonly #continuing = new Map<string, { fromMs: number; untilMs: number; sent: number; total: number }>();

  constructor(faults: readonly MetricsFault[] = [], now: () => number = () => performance.now()) {
    for (const f of faults) if (!(metricsFaultNames as readonly string[]).includes(f)) throw new RangeError(`unknown metrics fault "${String(f)}" (known: ${metricsFaultNames.join(', ')})`);
    this.#faults = new Set(faults);
    this.#now = now;
  }

  /** A request admitted: its prompt is processed (cached part from the prefix cache) after queuedMs. */
  admit(id: string, promptTokens: number, cachedTokens: number, queuedMs: number): void {
    this.#prompt += promptTokens;
    this.#cacheQueries += promptTokens;
    this.#cacheHits += cachedTokens;
    this.#queue.observe(queuedMs / 1000);
    this.#running.set(id, { serviceStartMs: this.#now() + queuedMs, tokens: promptTokens });
  }

  /**
   * A request ended: `generated` tokens were written; `firstTokenMs` after admission (null: none).
   * `leaked`: it stays among the running requests for ever (fault cancel-leaks-slot: its slot is never freed).
   */
  finish(id: string, generated: number, firstTokenMs: number | null, reason: 'stop' | 'length' | 'abort', requestFaults: ReadonlySet<string> = new Set(), leaked = false): void {
    if (!leaked) this.#running.delete(id);
    this.#continuing.delete(id);
    if (!requestFaults.has('metrics-tokens-not-counted')) this.#generated += this.#faults.has('undercount-generated') && generated > 0 ? generated - 1 : this.#faults.has('overcount-generated') ? generated + 1 : generated;
    this.#success[reason]++;
    if (firstTokenMs !== null) this.#ttft.observe(firstTokenMs / 1000);
  }

  /**
   * Fault cancel-ignored: the client left after `sent` tokens, yet the request goes on generating to `total`
   * over `remainingMs` (it stays running); its tokens count as they are made, until `finish` counts them whole.
   */
  continueAfterCut(id: string, sent: number, total: number, remainingMs: number): void {
    const now = this.#now();
    this.#continuing.set(id, { fromMs: now, untilMs: now + Math.max(1, remainingMs), sent, total: Math.max(sent, total) });
  }

  #generatedNow(now: number): number {
    let n = this.#generated;
    for (const c of this.#continuing.values()) n += Math.floor(c.sent + (c.total - c.sent) * Math.min(1, (now - c.fromMs) / (c.untilMs - c.fromMs)));
    return n;
  }

  #lastServed: number | null = null;

  text(model: string, requestFaults: ReadonlySet<string> = new Set()): string {
    this.#reads++;
    const labels = `engine="0",model_name="${model.replace(/["\\\n]/g, '_')}"`;
    const now = this.#now();
    let running = 0;
    let waiting = 0;
    let kvTokens = 0;
    for (const r of this.#running.values()) {
      if (now < r.serviceStartMs) waiting++;
      else {
        running++;
        kvTokens += r.tokens;
      }
    }
    // Fault counter-decreases: every second read serves the generated-token counter at half its value.
    const made = this.#generatedNow(now);
    const generated = this.#faults.has('counter-decreases') && this.#reads % 2 === 0 ? Math.floor(made / 2) : made;
    // Fault metrics-counter-decreases: one lower than the last read served, whatever was queried since.
    let queries = this.#cacheQueries;
    if (requestFaults.has('metrics-counter-decreases')) queries = this.#lastServed === null ? this.#cacheQueries + 1 : this.#lastServed - 1;
    this.#lastServed = queries;
    const scalar = (name: string, type: 'gauge' | 'counter', help: string, value: number): string[] => [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, `${name}{${labels}} ${value}`];
    return [
      ...scalar('vllm:num_requests_running', 'gauge', 'Number of requests in model execution batches.', running),
      ...scalar('vllm:num_requests_waiting', 'gauge', 'Number of requests waiting to be processed.', waiting),
      ...scalar('vllm:kv_cache_usage_perc', 'gauge', 'KV-cache usage. 1 means 100 percent usage.', Math.min(1, kvTokens / KV_CAPACITY_TOKENS)),
      ...scalar('vllm:prefix_cache_queries_total', 'counter', 'Prefix cache queries, in terms of number of queried tokens.', queries),
      ...scalar('vllm:prefix_cache_hits_total', 'counter', 'Prefix cache hits, in terms of number of cached tokens.', this.#cacheHits),
      ...scalar('vllm:num_preemptions_total', 'counter', 'Cumulative number of preemption from the engine.', 0),
      ...scalar('vllm:prompt_tokens_total', 'counter', 'Number of prefill tokens processed.', this.#prompt),
      ...scalar('vllm:generation_tokens_total', 'counter', 'Number of generation tokens processed.', generated),
      '# HELP vllm:request_success_total Count of successfully processed requests.',
      '# TYPE vllm:request_success_total counter',
      ...(['stop', 'length', 'abort'] as const).map((r) => `vllm:request_success_total{${labels},finished_reason="${r}"} ${this.#success[r]}`),
      ...this.#ttft.lines('vllm:time_to_first_token_seconds', labels),
      ...this.#queue.lines('vllm:request_queue_time_seconds', labels),
      ...(requestFaults.has('metrics-malformed') ? ['vllm:num_requests_swapped{engine="0"} none'] : []),
      '',
    ].join('\n');
  }
}

/**
 * GET /metrics: public, as vLLM serves it (its API key guards /v1 only). Only the metrics faults
 * apply: the HTTP and body faults of the interface's routes are not this route's.
 */
export function metricsResponse(metrics: MockMetrics, model: string, requestId: string, faults: ReadonlySet<string>): FullResponse {
  if (faults.has('metrics-missing')) return errorResponse(unknownUrl('GET', '/metrics'), requestId, new Set());
  return { kind: 'full', status: 200, headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'x-request-id': requestId }, body: metrics.text(model, faults), requestId };
}
