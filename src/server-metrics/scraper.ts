// Reads a server's /metrics every interval while a load runs, each read bounded in time and size and
// stamped on iari's monotonic clock (the clock every request is timed on). A read that fails is kept as
// a failure and never stops the run. Credentials: the run's token goes only to the target's own origin,
// and only once the endpoint answered 401/403 without it; a header given for the metrics URL is sent there.
import { Pool, type Dispatcher } from 'undici';
import { dispatcherFor } from '../client/dispatcher.ts';
import type { ConnectionOptions } from '../client/connection-options.ts';
import { parseExposition, type ParseIssue } from './prom-text.ts';
import { indexSamples, readVocabulary, type Engine, type ServerReading } from './vocabulary.ts';

export const DEFAULT_SCRAPE_INTERVAL_MS = 500;
export const DEFAULT_SCRAPE_TIMEOUT_MS = 2000;
export const DEFAULT_SCRAPE_MAX_BYTES = 4 * 1024 * 1024;
/** Failures, decreases and raw series kept (the counts go on). */
const KEPT = 20;
const KEPT_RAW = 200;

export interface ScrapeTarget {
  /** The metrics URL (default: the target's origin + /metrics). */
  url: string;
  /** The load target's origin: the only origin the run's token may go to. */
  targetOrigin: string;
  /** The run's bearer token (sent only to targetOrigin, only when the endpoint asks). */
  token: string | null;
  /** Headers given for the metrics URL (--server-metrics-header). */
  headers: readonly { name: string; value: string }[];
  connection?: ConnectionOptions;
  intervalMs?: number;
  timeoutMs?: number;
  maxBytes?: number;
  /** Monotonic clock, ns (default process.hrtime.bigint). */
  now?: () => bigint;
}

export interface ScrapePoint {
  atNs: bigint;
  ms: number;
  reading: ServerReading;
}

export interface CounterDecrease {
  series: string;
  from: number;
  to: number;
  atNs: bigint;
}

export interface RawSeries {
  series: string;
  type: string;
  first: number;
  last: number;
}

export interface ScrapeLog {
  url: string;
  intervalMs: number;
  engine: Engine | null;
  attempts: number;
  points: ScrapePoint[];
  failures: { atNs: bigint; why: string }[];
  failureCount: number;
  decreases: CounterDecrease[];
  decreaseCount: number;
  parseIssues: ParseIssue[];
  parseIssueCount: number;
  raw: RawSeries[];
  /** Whether the token was needed (and sent). */
  sentToken: boolean;
  /** A shard's read before its priming request (readBeforePriming), kept apart from the run's points. */
  beforePriming: ScrapePoint | null;
}

type Outcome = { ok: true; text: string } | { ok: false; why: string; status?: number };

export class ServerScraper {
  readonly #t: Required<Omit<ScrapeTarget, 'connection' | 'token'>> & { token: string | null };
  readonly #pool: Dispatcher;
  readonly #log: ScrapeLog;
  #sendToken = false;
  #prevCounters = new Map<string, number>();
  #rawFirst = new Map<string, { type: string; value: number }>();
  #rawLast = new Map<string, number>();
  #timer: NodeJS.Timeout | null = null;
  #inFlight: Promise<void> | null = null;
  #stopped = false;
  /** hurry(): reads every #fastMs until this instant (ns), then every interval again. */
  #fastUntilNs = 0n;
  #fastMs = 0;
  #tick: (() => void) | null = null;

  constructor(t: ScrapeTarget) {
    const url = new URL(t.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`the metrics URL must be http(s), got ${url.protocol}`);
    this.#t = {
      url: url.href,
      targetOrigin: t.targetOrigin,
      token: t.token,
      headers: t.headers,
      intervalMs: t.intervalMs ?? DEFAULT_SCRAPE_INTERVAL_MS,
      timeoutMs: t.timeoutMs ?? DEFAULT_SCRAPE_TIMEOUT_MS,
      maxBytes: t.maxBytes ?? DEFAULT_SCRAPE_MAX_BYTES,
      now: t.now ?? process.hrtime.bigint,
    };
    const options = { connections: 1, headersTimeout: this.#t.timeoutMs, bodyTimeout: this.#t.timeoutMs };
    this.#pool = t.connection === undefined ? new Pool(url.origin, options) : dispatcherFor(t.connection, url.origin, options);
    this.#log = { url: displayMetricsUrl(url.href), intervalMs: this.#t.intervalMs, engine: null, attempts: 0, points: [], failures: [], failureCount: 0, decreases: [], decreaseCount: 0, parseIssues: [], parseIssueCount: 0, raw: [], sentToken: false, beforePriming: null };
  }

  /** The reads so far (oldest first). */
  get points(): readonly ScrapePoint[] {
    return this.#log.points;
  }

  /** One read now (the baseline before the first request, the last after the run). */
  async scrapeOnce(): Promise<void> {
    const atNs = this.#t.now();
    this.#log.attempts++;
    let got = await this.#fetch(this.#sendToken);
    // The server needs credentials: the token, to the target's own origin only.
    if (!got.ok && (got.status === 401 || got.status === 403) && !this.#sendToken && this.#mayGetToken()) {
      this.#sendToken = true;
      this.#log.sentToken = true;
      got = await this.#fetch(true);
    }
    const ms = Number(this.#t.now() - atNs) / 1e6;
    if (!got.ok) return this.#fail(atNs, got.status === 401 || got.status === 403 ? `${got.why}${this.#mayGetToken() ? '' : ' (the run token is never sent to another origin: give --server-metrics-header)'}` : got.why);
    const parsed = parseExposition(got.text, { maxBytes: this.#t.maxBytes, maxSamples: 50_000, maxLineChars: 64 * 1024, maxLabels: 64 });
    if (!parsed.ok) return this.#fail(atNs, `the text was refused: ${parsed.why}`);
    this.#log.parseIssueCount += parsed.issueCount;
    for (const i of parsed.issues) if (this.#log.parseIssues.length < KEPT) this.#log.parseIssues.push(i);
    const byName = indexSamples(parsed.exposition);
    const reading = readVocabulary(byName, this.#log.engine ?? undefined);
    if (this.#log.engine === null && reading.engine !== null) this.#log.engine = reading.engine;
    // Counters (and histogram counts and sums) never go down; a decrease is kept with both values.
    const counters = new Map<string, number>();
    for (const f of parsed.exposition.families.values()) {
      const monotonic = f.type === 'counter' || f.type === 'histogram';
      for (const s of f.samples) {
        const key = seriesKey(s.name, s.labels);
        if (monotonic && !s.name.endsWith('_created') && Number.isFinite(s.value)) counters.set(key, s.value);
        if (!reading.mapped.has(s.name)) this.#keepRaw(key, f.type, s.value);
      }
    }
    for (const [key, value] of counters) {
      const before = this.#prevCounters.get(key);
      if (before !== undefined && value < before) {
        this.#log.decreaseCount++;
        if (this.#log.decreases.length < KEPT) this.#log.decreases.push({ series: key, from: before, to: value, atNs });
      }
    }
    this.#prevCounters = counters;
    this.#log.points.push({ atNs, ms, reading });
  }

  /**
   * A read before the priming request (shards: iari report merge starts the joined window of the
   * shards that load one server at the earliest of these, so every shard's priming falls inside it).
   * It is not one of the run's points; a failed read leaves it null.
   */
  async readBeforePriming(): Promise<void> {
    const before = this.#log.points.length;
    await this.scrapeOnce();
    if (this.#log.points.length > before) this.#log.beforePriming = this.#log.points.pop() ?? null;
  }

  /** Reads every intervalMs until stop(); reads never overlap (a slow one delays the next). */
  start(): void {
    const tick = (): void => {
      if (this.#stopped) return;
      this.#timer = null;
      this.#inFlight = this.scrapeOnce().finally(() => {
        this.#inFlight = null;
        if (!this.#stopped) this.#timer = setTimeout(tick, this.#nextDelayMs()).unref();
      });
    };
    this.#tick = tick;
    this.#timer = setTimeout(tick, this.#t.intervalMs).unref();
  }

  /**
   * Reads every `fastMs` for the next `windowMs` (a cancelled request's release is then timed to
   * that resolution, src/server-metrics/cancel-release.ts); a read already due sooner is kept.
   */
  hurry(windowMs: number, fastMs: number): void {
    if (this.#stopped || this.#tick === null) return;
    this.#fastMs = fastMs;
    this.#fastUntilNs = this.#t.now() + BigInt(Math.round(windowMs * 1e6));
    // A read in flight schedules the next one itself, at the fast pace; a waiting timer is brought forward.
    if (this.#timer !== null && this.#inFlight === null) {
      clearTimeout(this.#timer);
      this.#timer = setTimeout(this.#tick, fastMs).unref();
    }
  }

  #nextDelayMs(): number {
    return this.#t.now() < this.#fastUntilNs ? Math.min(this.#fastMs, this.#t.intervalMs) : this.#t.intervalMs;
  }

  /**
   * After stop(): reads again every `everyMs` until `settled` holds for a read or `withinMs` passed
   * (a server releasing cut requests late is given that long). Returns the last read, if any.
   */
  async settle(settled: (p: ScrapePoint) => boolean, withinMs: number, everyMs: number): Promise<ScrapePoint | undefined> {
    const deadline = this.#t.now() + BigInt(Math.round(withinMs * 1e6));
    let last = this.#log.points[this.#log.points.length - 1];
    while ((last === undefined || !settled(last)) && this.#t.now() < deadline) {
      await new Promise((r) => setTimeout(r, everyMs));
      const before = this.#log.points.length;
      await this.scrapeOnce();
      if (this.#log.points.length > before) last = this.#log.points[this.#log.points.length - 1];
    }
    return last;
  }

  /** Stops the reads, takes the last one (then settle(), when given), and hands back the log. */
  async stop(final = true, settle?: (s: this) => Promise<unknown>): Promise<ScrapeLog> {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    await this.#inFlight;
    if (final) await this.scrapeOnce();
    if (settle !== undefined) await settle(this);
    await this.#pool.close().catch(() => undefined);
    for (const [key, first] of this.#rawFirst) this.#log.raw.push({ series: key, type: first.type, first: first.value, last: this.#rawLast.get(key) ?? first.value });
    return this.#log;
  }

  #mayGetToken(): boolean {
    return this.#t.token !== null && new URL(this.#t.url).origin === this.#t.targetOrigin;
  }

  #keepRaw(key: string, type: string, value: number): void {
    if (!this.#rawFirst.has(key)) {
      if (this.#rawFirst.size >= KEPT_RAW) return;
      this.#rawFirst.set(key, { type, value });
    }
    this.#rawLast.set(key, value);
  }

  #fail(atNs: bigint, why: string): void {
    this.#log.failureCount++;
    if (this.#log.failures.length < KEPT) this.#log.failures.push({ atNs, why });
  }

  async #fetch(withToken: boolean): Promise<Outcome> {
    const url = new URL(this.#t.url);
    const headers: Record<string, string> = { accept: 'text/plain; version=0.0.4', 'accept-encoding': 'identity' };
    for (const h of this.#t.headers) headers[h.name.toLowerCase()] = h.value;
    if (withToken && this.#t.token !== null && this.#t.token !== '' && url.origin === this.#t.targetOrigin) headers['authorization'] = `Bearer ${this.#t.token}`;
    const ac = new AbortController();
    const cut = setTimeout(() => ac.abort(), this.#t.timeoutMs);
    try {
      const res = await this.#pool.request({ origin: url.origin, path: `${url.pathname}${url.search}`, method: 'GET', headers, signal: ac.signal });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > this.#t.maxBytes) {
          ac.abort();
          return { ok: false, why: `the answer is over ${this.#t.maxBytes} bytes` };
        }
        chunks.push(chunk as Buffer);
      }
      if (res.statusCode !== 200) return { ok: false, why: `status ${res.statusCode}`, status: res.statusCode };
      return { ok: true, text: new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks)) };
    } catch (e) {
      return { ok: false, why: ac.signal.aborted ? `no whole answer within ${this.#t.timeoutMs} ms` : `could not read it: ${(e as Error).message}` };
    } finally {
      clearTimeout(cut);
    }
  }
}

export function seriesKey(name: string, labels: Readonly<Record<string, string>>): string {
  const keys = Object.keys(labels).sort();
  return keys.length === 0 ? name : `${name}{${keys.map((k) => `${k}="${labels[k]}"`).join(',')}}`;
}

/** The metrics URL without credentials or query (a query may carry a key). */
export function displayMetricsUrl(raw: string): string {
  const u = new URL(raw);
  return `${u.protocol}//${u.host}${u.pathname}`;
}
