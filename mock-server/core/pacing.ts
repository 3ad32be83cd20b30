// When each step of a generated answer is written: the latency model (TTFT, ITL, jitter, tokens per
// chunk, answer length), from the mock's settings or a request's x-iari-* headers.
import type { LatencySettings } from './context.ts';
import type { MockRequest } from './types.ts';
import { badRequest, type ApiError } from './http-errors.ts';
import { mulberry32 } from './rng.ts';

export function parseTokensPerChunk(value: string | number | readonly number[]): number[] | null {
  const list = typeof value === 'number' ? [value] : typeof value === 'string' ? value.split(',').map((s) => (/^\s*\d+\s*$/.test(s) ? Number(s) : NaN)) : [...value];
  if (list.length === 0 || list.some((n) => !Number.isInteger(n) || n < 1 || n > 10_000)) return null;
  return list;
}

/** The latency of one request: the mock's, overridden by its x-iari-ttft-ms, -itl-ms, -jitter-ms, -tokens-per-chunk and -completion-tokens headers. */
export function latencyOf(req: MockRequest, base: LatencySettings): LatencySettings | ApiError {
  const h = req.headers;
  if (h['x-iari-ttft-ms'] === undefined && h['x-iari-itl-ms'] === undefined && h['x-iari-jitter-ms'] === undefined && h['x-iari-tokens-per-chunk'] === undefined && h['x-iari-completion-tokens'] === undefined) {
    return base;
  }
  const out = { ...base };
  const num = (name: string, max: number): number | ApiError | undefined => {
    const v = h[name];
    if (v === undefined) return undefined;
    if (!/^\d+(\.\d+)?$/.test(v.trim()) || Number(v) > max) return badRequest(name, `Invalid header '${name}': expected a number from 0 to ${max}.`, 'invalid_header');
    return Number(v);
  };
  for (const [name, key] of [['x-iari-ttft-ms', 'ttftMs'], ['x-iari-itl-ms', 'itlMs'], ['x-iari-jitter-ms', 'jitterMs']] as const) {
    const v = num(name, 600_000);
    if (typeof v === 'object') return v;
    if (v !== undefined) out[key] = v;
  }
  const tpc = h['x-iari-tokens-per-chunk'];
  if (tpc !== undefined) {
    const pattern = parseTokensPerChunk(tpc);
    if (pattern === null) return badRequest('x-iari-tokens-per-chunk', "Invalid header 'x-iari-tokens-per-chunk': expected positive integers separated by commas.", 'invalid_header');
    out.tokensPerChunk = pattern;
  }
  const ct = h['x-iari-completion-tokens'];
  if (ct !== undefined) {
    if (!/^\d+$/.test(ct.trim()) || Number(ct) < 1 || Number(ct) > 100_000) return badRequest('x-iari-completion-tokens', "Invalid header 'x-iari-completion-tokens': expected an integer from 1 to 100000.", 'invalid_header');
    out.completionTokens = Number(ct);
  }
  return out;
}

/** The write time of each of `steps` steps (ms from the start): TTFT, then ITL apart, each with seeded jitter. */
export function stepTimes(steps: number, latency: LatencySettings, seed: number): number[] {
  const times = new Array<number>(steps);
  if (latency.ttftMs === 0 && latency.itlMs === 0 && latency.jitterMs === 0) return times.fill(0);
  const rng = mulberry32(seed);
  const jitter = () => (latency.jitterMs === 0 ? 0 : (rng() * 2 - 1) * latency.jitterMs);
  let t = Math.max(0, latency.ttftMs + jitter());
  for (let s = 0; s < steps; s++) {
    if (s > 0) t += Math.max(0, latency.itlMs + jitter());
    times[s] = t;
  }
  return times;
}
