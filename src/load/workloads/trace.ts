import { HarnessError, HarnessErrorCode } from '../../errors.ts';
import { parseDuration } from '../../duration.ts';
import { createReadStream } from 'node:fs';
import { clip } from '../../clip.ts';

/**
 * `--trace FILE`: production arrival times and lengths, replayed on the open loop.
 *
 * Mooncake JSONL (https://github.com/kvcache-ai/Mooncake, FAST25-release/traces): one
 * `{"timestamp": ms, "input_length": N, "output_length": N, "hash_ids": [id, ...]}` per line. Each
 * hash id stands for one 512-token block of the prompt, chained to every block before it, so two
 * requests whose hash_ids share a prefix share that prompt prefix: iari builds the same block text
 * for the same id (trace-prompts.ts), and a server's prefix cache sees what production saw.
 *
 * BurstGPT CSV (https://github.com/HPMLL/BurstGPT): a header with the columns `Timestamp`
 * (seconds from the trace start), `Request tokens` and `Response tokens` (others, such as `Model`,
 * `Total tokens` and `Log Type`, are read past). Rows whose `Response tokens` is 0 are the trace's
 * failed requests (BurstGPT's README): they are skipped and counted.
 *
 * A line iari cannot read stops the run before any traffic, naming the file and the line (exit 2).
 */

/** Tokens per Mooncake hash block (the trace's own block size). */
export const TRACE_BLOCK_TOKENS = 512;
/** A trace longer than this is refused (replay keeps its entries in memory). */
const MAX_ENTRIES = 5_000_000;
const MAX_LENGTH = 1_000_000;

export type TraceFormat = 'mooncake' | 'burstgpt';

export interface TraceEntry {
  /** Intended send time, ms after the replay's start (window start and speed applied). */
  atMs: number;
  input: number;
  output: number;
  /** Mooncake's 512-token block ids, or null (BurstGPT; Mooncake lines without them). */
  hashIds: readonly number[] | null;
  /** 1-based line in the file. */
  line: number;
}

export interface TraceInfo {
  file: string;
  format: TraceFormat;
  /** Entries read (data lines). */
  read: number;
  /** Entries replayed: inside the window, not skipped. */
  kept: number;
  /** BurstGPT rows of failed requests (Response tokens 0). */
  skipped: number;
  speed: number;
  /** Seconds of the trace replayed, from its first timestamp (or the window's start). */
  window: { startS: number; endS: number | null } | null;
  /** Time from the replay's start to its last arrival, s (after --trace-speed). */
  spanS: number;
  /** Requests per second over the replay (kept / spanS), for the report. */
  meanRate: number;
}

export interface TraceSpec {
  entries: TraceEntry[];
  info: TraceInfo;
}

export interface TraceOptions {
  format?: TraceFormat;
  speed: number;
  window: { startS: number; endS: number | null } | null;
}

/** Calls `onLine` with each non-blank line and its 1-based number, streaming. */
async function eachLine(file: string, onLine: (line: string, n: number) => void): Promise<void> {
  let rest = '';
  let n = 0;
  const decoder = new TextDecoder();
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    const lines = (rest + decoder.decode(chunk, { stream: true })).split('\n');
    rest = lines.pop() ?? '';
    if (rest.length > 1 << 20) throw bad(file, n + lines.length + 1, 'longer than 1 MiB');
    for (const line of lines) {
      n++;
      if (line.trim() !== '') onLine(line, n);
    }
  }
  rest += decoder.decode();
  if (rest.trim() !== '') onLine(rest, n + 1);
}

const shown = (value: unknown): string => clip(JSON.stringify(value) ?? String(value));

const bad = (file: string, line: number, why: string): HarnessError =>
  new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `iari load: --trace ${file} line ${line}: ${why}`, {
    hint: 'Mooncake JSONL: {"timestamp":ms,"input_length":N,"output_length":N,"hash_ids":[...]} per line; BurstGPT CSV: a header with Timestamp,Request tokens,Response tokens',
  });

/** `START-END` in trace time (durations: 60, 60s, 1m30s; END may be empty: to the end). */
export function parseTraceWindow(value: string, who = 'iari load', label = '--trace-window'): { startS: number; endS: number | null } {
  const m = /^\s*([^-\s]+)\s*-\s*([^-\s]*)\s*$/.exec(value);
  const start = m?.[1] === undefined ? undefined : parseDuration(m[1]);
  const end = m?.[2] === undefined || m[2] === '' ? null : parseDuration(m[2]);
  if (m === null || start === undefined || end === undefined || (end !== null && end <= start)) {
    throw new HarnessError(HarnessErrorCode.USAGE, `${who}: ${label} must be START-END in trace time with END after START, e.g. 60s-120s, 0-30 or 10m- (to the end); got "${value}"`);
  }
  return { startS: start / 1000, endS: end === null ? null : end / 1000 };
}

const count = (v: unknown, min: number): boolean => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= MAX_LENGTH;

function mooncakeLine(file: string, text: string, line: number): Omit<TraceEntry, 'atMs'> & { t: number } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (error) {
    throw bad(file, line, `not JSON (${(error as Error).message})`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad(file, line, 'not a JSON object');
  const o = v as Record<string, unknown>;
  const t = o['timestamp'];
  if (typeof t !== 'number' || !Number.isFinite(t) || t < 0) throw bad(file, line, `"timestamp" must be a number of ms >= 0, got ${shown(t)}`);
  if (!count(o['input_length'], 1)) throw bad(file, line, `"input_length" must be an integer from 1 to ${MAX_LENGTH}, got ${shown(o['input_length'])}`);
  if (!count(o['output_length'], 1)) throw bad(file, line, `"output_length" must be an integer from 1 to ${MAX_LENGTH}, got ${shown(o['output_length'])}`);
  const ids = o['hash_ids'];
  if (ids !== undefined && (!Array.isArray(ids) || !ids.every((id) => typeof id === 'number' && Number.isSafeInteger(id) && id >= 0))) {
    throw bad(file, line, '"hash_ids" must be an array of non-negative integers');
  }
  return { t, input: o['input_length'] as number, output: o['output_length'] as number, hashIds: ids === undefined || ids.length === 0 ? null : (ids as number[]), line };
}

/** Splits one CSV record (RFC 4180 quotes; no newlines inside fields). */
function csvFields(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    if (text[i] === '"') {
      let s = '';
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) return [...out, s + text.slice(i)];
        s += text.slice(i, q);
        if (text[q + 1] === '"') {
          s += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      out.push(s);
      const comma = text.indexOf(',', i);
      if (comma < 0) return out;
      i = comma + 1;
    } else {
      const comma = text.indexOf(',', i);
      if (comma < 0) return [...out, text.slice(i).trim()];
      out.push(text.slice(i, comma).trim());
      i = comma + 1;
    }
  }
}

/** Reads, checks and windows a trace (before any traffic; a bad line exits 2 naming it). */
export async function readTrace(file: string, o: TraceOptions): Promise<TraceSpec> {
  const raw: (Omit<TraceEntry, 'atMs'> & { t: number })[] = [];
  let format: TraceFormat | undefined = o.format;
  let columns: { t: number; input: number; output: number } | null = null;
  let read = 0;
  let skipped = 0;
  try {
    await eachLine(file, (text, line) => {
      const body = text.replace(/\r$/, '');
      if (format === undefined) format = body.trimStart().startsWith('{') ? 'mooncake' : 'burstgpt';
      if (format === 'mooncake') {
        read++;
        raw.push(mooncakeLine(file, body, line));
      } else if (columns === null) {
        const names = csvFields(body).map((n) => n.trim().toLowerCase());
        const at = (name: string): number => {
          const k = names.indexOf(name.toLowerCase());
          if (k < 0) throw bad(file, line, `the header has no "${name}" column (it has ${clip(names.join(', '), 200)})`);
          return k;
        };
        columns = { t: at('Timestamp'), input: at('Request tokens'), output: at('Response tokens') };
      } else {
        read++;
        const f = csvFields(body);
        const num = (k: number, name: string, integer: boolean): number => {
          const s = f[k];
          const n = s === undefined || s === '' ? NaN : Number(s);
          if (!Number.isFinite(n) || n < 0 || (integer && (!Number.isInteger(n) || n > MAX_LENGTH))) throw bad(file, line, `"${name}" must be ${integer ? `an integer from 0 to ${MAX_LENGTH}` : 'a number of seconds >= 0'}, got ${shown(s ?? null)}`);
          return n;
        };
        const t = num(columns.t, 'Timestamp', false) * 1000;
        const input = num(columns.input, 'Request tokens', true);
        const output = num(columns.output, 'Response tokens', true);
        if (output === 0 || input === 0) {
          skipped++;
          return;
        }
        raw.push({ t, input, output, hashIds: null, line });
      }
      if (raw.length > MAX_ENTRIES) throw bad(file, line, `more than ${MAX_ENTRIES} entries; cut the trace (or pick a part with --trace-window)`);
    });
  } catch (error) {
    if (error instanceof HarnessError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `iari load: cannot read --trace ${file}: ${code}`);
  }
  if (format === 'burstgpt' && columns === null) throw bad(file, 1, 'no header line (BurstGPT CSV starts with Timestamp,Model,Request tokens,...)');
  // Replay order is time order (a trace merged from several logs may not be sorted); equal times keep file order.
  raw.sort((a, b) => a.t - b.t || a.line - b.line);
  const first = raw[0]?.t ?? 0;
  const startMs = o.window === null ? first : o.window.startS * 1000;
  const endMs = o.window?.endS === null || o.window === null ? Infinity : o.window.endS * 1000;
  const entries: TraceEntry[] = [];
  for (const r of raw) {
    if (r.t < startMs || r.t >= endMs) continue;
    entries.push({ atMs: (r.t - startMs) / o.speed, input: r.input, output: r.output, hashIds: r.hashIds, line: r.line });
  }
  if (entries.length === 0) {
    throw new HarnessError(HarnessErrorCode.USAGE, `iari load: --trace ${file}: no request to replay${o.window === null ? '' : ` in the window ${o.window.startS}s-${o.window.endS ?? ''}${o.window.endS === null ? '' : 's'} (the trace spans ${(first / 1000).toFixed(3)}s-${((raw.at(-1)?.t ?? 0) / 1000).toFixed(3)}s)`}`);
  }
  const spanS = (entries.at(-1)?.atMs ?? 0) / 1000;
  return {
    entries,
    info: { file, format: format ?? 'mooncake', read, kept: entries.length, skipped, speed: o.speed, window: o.window, spanS, meanRate: spanS > 0 ? entries.length / spanS : entries.length },
  };
}
