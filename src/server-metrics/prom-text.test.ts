import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PARSE_LIMITS, parseExposition } from './prom-text.ts';
import { histogramDelta, indexSamples, quantileBucket, readVocabulary } from './vocabulary.ts';

const vllm = `# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 3.0
vllm:num_requests_running{engine="1",model_name="m"} 2.0
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.25
vllm:kv_cache_usage_perc{engine="1",model_name="m"} 0.5
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{engine="0",model_name="m"} 100.0
vllm:generation_tokens_total{engine="1",model_name="m"} 20.0
# TYPE vllm:request_success_total counter
vllm:request_success_total{engine="0",finished_reason="stop",model_name="m"} 7
vllm:request_success_total{engine="0",finished_reason="length",model_name="m"} 2
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.1",model_name="m"} 4
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.5",model_name="m"} 9
vllm:time_to_first_token_seconds_bucket{engine="0",le="+Inf",model_name="m"} 10
vllm:time_to_first_token_seconds_count{engine="0",model_name="m"} 10
vllm:time_to_first_token_seconds_sum{engine="0",model_name="m"} 2.5
`;

function read(text: string) {
  const p = parseExposition(text);
  if (!p.ok) throw new Error(p.why);
  return { ...p, reading: readVocabulary(indexSamples(p.exposition)) };
}

describe('Prometheus text reader', () => {
  it('reads counters, gauges and histograms with labels, attaching _total, _bucket, _sum and _count to their family', () => {
    const { exposition, issues } = read(vllm);
    expect(issues).toEqual([]);
    expect(exposition.families.get('vllm:generation_tokens_total')?.type).toBe('counter');
    const h = exposition.families.get('vllm:time_to_first_token_seconds')!;
    expect(h.type).toBe('histogram');
    expect(h.samples.map((s) => s.name)).toEqual(['vllm:time_to_first_token_seconds_bucket', 'vllm:time_to_first_token_seconds_bucket', 'vllm:time_to_first_token_seconds_bucket', 'vllm:time_to_first_token_seconds_count', 'vllm:time_to_first_token_seconds_sum']);
    expect(h.samples[2]?.labels).toEqual({ engine: '0', le: '+Inf', model_name: 'm' });
  });

  it('reads escaped label values, +Inf, NaN, exponents and a timestamp', () => {
    const p = parseExposition('x{a="q\\"uote\\\\back\\nline"} 1.5e+03 1700000000000\ny +Inf\nz NaN\n');
    expect(p.ok && p.issues).toEqual([]);
    if (!p.ok) return;
    expect(p.exposition.families.get('x')?.samples[0]).toEqual({ name: 'x', labels: { a: 'q"uote\\back\nline' }, value: 1500 });
    expect(p.exposition.families.get('y')?.samples[0]?.value).toBe(Infinity);
    expect(Number.isNaN(p.exposition.families.get('z')?.samples[0]?.value)).toBe(true);
  });

  it('reads the special values as Go\'s ParseFloat does: Inf and Infinity signed, NaN unsigned, in any case (fuzz finding)', () => {
    const p = parseExposition('a inf\nb -Infinity\nc +INF\nd nan\ne +NaN\nf infinit\n');
    expect(p.ok).toBe(true);
    if (!p.ok) return;
    const value = (n: string) => p.exposition.families.get(n)?.samples[0]?.value;
    expect([value('a'), value('b'), value('c'), value('d')]).toEqual([Infinity, -Infinity, Infinity, NaN]);
    expect(p.issues.map((i) => i.line)).toEqual([5, 6]);
  });

  it('reads a HELP line holding U+2028 in time linear in its length, and keeps its docstring (the pattern backtracked: found writing the fuzz target)', () => {
    const p = parseExposition('# HELP a one\u2028two\n# TYPE a gauge\na 1\n');
    expect(p.ok && p.exposition.families.get('a')).toMatchObject({ type: 'gauge', help: 'one\u2028two' });
    // 60,000 characters of name, then U+2028 (not a blank: part of the name token): 7 s a line before.
    const long = `# HELP ${'x'.repeat(60_000)}\u2028y\u2028z\n`;
    const t0 = performance.now();
    const q = parseExposition(long.repeat(20));
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(q.ok && q.issueCount).toBe(20);
  });

  it('unescapes a HELP docstring: \\\\ and \\n, any other backslash kept (fuzz finding: the escapes were kept)', () => {
    const p = parseExposition('# HELP a back\\\\slash\\nnewline \\\\n \\t\\\n');
    expect(p.ok && p.exposition.families.get('a')?.help).toBe('back\\slash\nnewline \\n \\t\\');
  });

  it('refuses a value of 60,000 digits and a letter in time linear in its length (fuzz finding: the number pattern backtracked)', () => {
    const line = `a ${'7'.repeat(60_000)}x\n`;
    const t0 = performance.now();
    const p = parseExposition(line.repeat(20));
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(p.ok && p.issueCount).toBe(20);
    expect(parseExposition('a 1.\nb .5e3\nc 12.5E-1\n')).toMatchObject({ ok: true, issueCount: 0 });
  });

  it('hostile lines are findings with their line number, never a throw; the readable lines still count', () => {
    const text = ['ok 1', 'bad{a="open 1', '9name 1', 'x{a=b} 1', 'x{a="1",a="2"} 1', 'v one', '# TYPE t sometype', `w{${Array.from({ length: 80 }, (_, i) => `k${i}="v"`).join(',')}} 1`, 'after 2'].join('\n');
    const p = parseExposition(text);
    expect(p.ok).toBe(true);
    if (!p.ok) return;
    expect(p.issues.map((i) => i.line)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    expect(p.issues[0]?.why).toMatch(/not closed/);
    expect(p.issues[5]?.why).toMatch(/sometype/);
    expect(p.issues[6]?.why).toMatch(/more than 64 labels/);
    expect(p.exposition.samples).toBe(2);
  });

  it('refuses text over its size or sample bounds whole, and cuts an over-long line', () => {
    expect(parseExposition('x 1\n'.repeat(10), { ...DEFAULT_PARSE_LIMITS, maxBytes: 20 })).toEqual({ ok: false, why: 'the text is 40 characters, over the 20 accepted' });
    expect(parseExposition('x 1\n'.repeat(10), { ...DEFAULT_PARSE_LIMITS, maxSamples: 5 })).toEqual({ ok: false, why: 'more than 5 samples' });
    const long = parseExposition(`x{a="${'z'.repeat(100)}"} 1\ny 2`, { ...DEFAULT_PARSE_LIMITS, maxLineChars: 50 });
    expect(long.ok && long.issues[0]?.why).toMatch(/over the 50 accepted/);
    expect(long.ok && long.exposition.samples).toBe(1);
  });

  it('reads a line of 20,000 labels never closed in bounded time (no backtracking)', () => {
    const t0 = performance.now();
    const p = parseExposition(`x{${Array.from({ length: 20_000 }, (_, i) => `k${i}="v"`).join(',')}`, { ...DEFAULT_PARSE_LIMITS, maxLineChars: 1_000_000, maxLabels: 100_000 });
    expect(p.ok && p.issues[0]?.why).toBe('x: the label set is not closed');
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});

describe('one vocabulary over the engines', () => {
  it('vLLM: sums engines and finished reasons, takes the fullest engine\'s KV cache, reads the TTFT histogram', () => {
    const { reading } = read(vllm);
    expect(reading.engine).toBe('vllm');
    expect(reading.gauges).toEqual({ running: 5, kvCacheUsage: 0.5 });
    expect(reading.counters).toEqual({ generatedTokens: 120, requestsFinished: 9 });
    const h = reading.histograms.ttft!;
    expect(h).toEqual({ bounds: [0.1, 0.5, Infinity], cumulative: [4, 9, 10], sum: 2.5, count: 10 });
    expect(quantileBucket(h, 0.5)).toEqual({ low: 0.1, high: 0.5 });
    expect(quantileBucket(h, 0.95)).toEqual({ low: 0.5, high: Infinity });
    expect(histogramDelta(h, { ...h, cumulative: [5, 12, 14], sum: 3.5, count: 14 })).toEqual({ bounds: [0.1, 0.5, Infinity], cumulative: [1, 3, 4], sum: 1, count: 4 });
  });

  it('llama.cpp (its /metrics as measured here): prompt tokens are the uncached plus the cached counter', () => {
    const text = readFileSync(new URL('./fixtures/llamacpp-metrics.txt', import.meta.url), 'utf8');
    const { reading, issues } = read(text);
    expect(issues).toEqual([]);
    expect(reading.engine).toBe('llamacpp');
    expect(reading.counters).toEqual({ promptTokens: 1278 + 1752, generatedTokens: 805, cachedTokens: 1752 });
    expect(reading.gauges).toEqual({ running: 0, waiting: 0 });
  });

  it('SGLang and TGI names map to the same keys (TGI counts tokens in per-request histograms: their sums)', () => {
    const sg = read('sglang:num_running_reqs{model_name="m"} 4\nsglang:num_queue_reqs{model_name="m"} 1\nsglang:token_usage{model_name="m"} 0.3\nsglang:generation_tokens_total{model_name="m"} 50\nsglang:cached_tokens_total{model_name="m"} 7\nsglang:num_requests_total{model_name="m"} 3\n').reading;
    expect(sg).toMatchObject({ engine: 'sglang', gauges: { running: 4, waiting: 1, kvCacheUsage: 0.3 }, counters: { generatedTokens: 50, cachedTokens: 7, requestsFinished: 3 } });
    const tgi = read('# TYPE tgi_request_generated_tokens histogram\ntgi_request_generated_tokens_bucket{le="+Inf"} 2\ntgi_request_generated_tokens_sum 41\ntgi_request_generated_tokens_count 2\ntgi_queue_size 6\ntgi_batch_current_size 2\ntgi_request_success 2\n').reading;
    expect(tgi).toMatchObject({ engine: 'tgi', gauges: { running: 2, waiting: 6 }, counters: { generatedTokens: 41, requestsFinished: 2 } });
  });

  it('unknown names map to nothing: no engine, every series left raw', () => {
    const { reading } = read('process_cpu_seconds_total 12\nhttp_requests_total{code="200"} 4\n');
    expect(reading).toMatchObject({ engine: null, gauges: {}, counters: {}, histograms: {} });
    expect(reading.mapped.size).toBe(0);
  });
});
