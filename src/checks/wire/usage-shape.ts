import { isRecord } from '../kernel/json-guards.ts';

/**
 * Works out the shape of a server's `GET /v1/me/usage` (issue 10, part 3). Seed, Daily usage:
 * "Fields of the response: not shown. It holds a day-by-day breakdown of activity, from which an
 * overview heatmap is built." So iari finds the rows, the member that dates them and the counters,
 * by name and by the delta one known completion causes, and runs the seed-grounded cross-checks on
 * what it found (DECISIONS.md D-HTTP-43). Pure functions over parsed bodies; the probing requests
 * are in usage-discovery.ts.
 */

/** What a counter counts, named as the profile's row members (D-HTTP-09). */
export const counterKinds = ['requests', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'spend_usd'] as const;
export type CounterKind = (typeof counterKinds)[number];

/** Where the rows are: `pointer` (RFC 6901, "" = the body itself) to an array of rows, or to an object keyed by day. */
export interface RowsLocation {
  pointer: string;
  form: 'array' | 'map';
}

/** How a row says its day: a member written as a date, a date-time or Unix seconds/milliseconds, or the map key. */
export type DateForm = 'date' | 'date-time' | 'unix-seconds' | 'unix-ms';
export interface DateKey {
  /** Member path (nested members joined with "."); null: the key of the map the rows sit in. */
  member: string | null;
  form: DateForm;
}

export interface CounterMatch {
  /** Member path in a row (nested members joined with "."). */
  member: string;
  /** Identified by its name, by the delta of the probe completion, or both. */
  by: 'name' | 'delta' | 'name+delta';
  /** When name and delta disagree: what the probe saw. */
  note?: string;
}

export interface UsageShape {
  rows: RowsLocation;
  date: DateKey;
  counters: Partial<Record<CounterKind, CounterMatch>>;
  /** Numeric row members no counter kind claimed (reported, not judged). */
  unplaced: string[];
}

/** One row as iari reads it: its UTC day and the counters it found. */
export type UsageRow = { date: string } & Partial<Record<CounterKind, number>>;

/** The usage of the probe completion and how each numeric member of today's row moved. */
export interface DeltaProbe {
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  moved: Record<string, number>;
}

type Json = Record<string, unknown>;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;
/** Preferred names for the rows container and the date member, most likely first. */
const ROW_NAMES = ['data', 'days', 'daily', 'usage', 'rows', 'items', 'results', 'buckets', 'breakdown', 'activity'];
const DATE_NAMES = ['date', 'day', 'timestamp', 'ts', 'time', 'start', 'start_time', 'period_start', 'bucket'];

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function readPointer(body: unknown, pointer: string): unknown {
  if (pointer === '') return body;
  let v = body;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isRecord(v)) return undefined;
    v = v[key];
  }
  return v;
}

/** The UTC day a date value stands for, or undefined. */
export function dayOf(value: unknown, form: DateForm): string | undefined {
  let t: number;
  if (form === 'date') {
    if (typeof value !== 'string' || !DATE.test(value)) return undefined;
    const t0 = Date.parse(`${value}T00:00:00Z`);
    // A calendar date that exists (no 2026-02-30).
    return !Number.isNaN(t0) && new Date(t0).toISOString().slice(0, 10) === value ? value : undefined;
  }
  if (form === 'date-time') {
    if (typeof value !== 'string' || !DATE_TIME.test(value)) return undefined;
    t = Date.parse(value.replace(' ', 'T'));
  } else if (form === 'unix-seconds') {
    if (typeof value !== 'number' || !Number.isInteger(value)) return undefined;
    t = value * 1000;
  } else {
    if (typeof value !== 'number' || !Number.isInteger(value)) return undefined;
    t = value;
  }
  return Number.isNaN(t) ? undefined : new Date(t).toISOString().slice(0, 10);
}

function dateFormOf(value: unknown): DateForm | undefined {
  if (typeof value === 'string') {
    if (DATE.test(value)) return 'date';
    if (DATE_TIME.test(value) && !Number.isNaN(Date.parse(value.replace(' ', 'T')))) return 'date-time';
    return undefined;
  }
  if (typeof value === 'number' && Number.isInteger(value)) {
    // 2001-09-09 .. 2286-11-20 in seconds or milliseconds.
    if (value >= 1e9 && value < 1e10) return 'unix-seconds';
    if (value >= 1e12 && value < 1e13) return 'unix-ms';
  }
  return undefined;
}

/** A row's members with nested objects flattened one level ("usage.tokens"). */
export function flatten(row: unknown): Json {
  const out: Json = {};
  if (!isRecord(row)) return out;
  for (const [k, v] of Object.entries(row)) {
    if (isRecord(v)) for (const [k2, v2] of Object.entries(v)) out[`${k}.${k2}`] = v2;
    else out[k] = v;
  }
  return out;
}

function isDayMap(v: unknown): v is Json {
  return isRecord(v) && Object.keys(v).length > 0 && Object.entries(v).every(([k, r]) => dateFormOf(k) !== undefined && isRecord(r));
}

function isRowArray(v: unknown): v is unknown[] {
  return Array.isArray(v) && v.every(isRecord);
}

/** Where the rows are: the body if it is an array of objects (or a map keyed by day), else the best member up to two levels down. */
export function locateRows(body: unknown): RowsLocation | undefined {
  if (isRowArray(body)) return { pointer: '', form: 'array' };
  if (isDayMap(body)) return { pointer: '', form: 'map' };
  if (!isRecord(body)) return undefined;
  const candidates: { loc: RowsLocation; rank: number; size: number }[] = [];
  const consider = (v: unknown, pointer: string, name: string, depth: number): void => {
    const nameRank = ROW_NAMES.indexOf(name.toLowerCase());
    const rank = depth * 100 + (nameRank === -1 ? 50 : nameRank);
    if (isRowArray(v)) candidates.push({ loc: { pointer, form: 'array' }, rank, size: v.length });
    else if (isDayMap(v)) candidates.push({ loc: { pointer, form: 'map' }, rank, size: Object.keys(v).length });
  };
  for (const [k, v] of Object.entries(body)) {
    consider(v, `/${escapePointer(k)}`, k, 0);
    if (isRecord(v)) for (const [k2, v2] of Object.entries(v)) consider(v2, `/${escapePointer(k)}/${escapePointer(k2)}`, k2, 1);
  }
  // A non-empty container beats an empty one; then the likelier name, shallower first.
  candidates.sort((a, b) => Number(b.size > 0) - Number(a.size > 0) || a.rank - b.rank);
  return candidates[0]?.loc;
}

/** The rows at a location, each with its map key when the rows sit in a map. */
export function rowsAt(body: unknown, loc: RowsLocation): { key: string | undefined; row: Json }[] | undefined {
  const v = readPointer(body, loc.pointer);
  if (loc.form === 'array') return isRowArray(v) ? v.map((row) => ({ key: undefined, row: flatten(row) })) : undefined;
  return isDayMap(v) ? Object.entries(v).map(([key, row]) => ({ key, row: flatten(row) })) : undefined;
}

/** The member that dates every row (the likeliest name when several do), or the map key. */
export function findDateKey(rows: readonly { key: string | undefined; row: Json }[], loc: RowsLocation): DateKey | undefined {
  if (rows.length === 0) return undefined;
  if (loc.form === 'map') {
    const form = dateFormOf(rows[0]?.key);
    return form !== undefined && rows.every((r) => dateFormOf(r.key) === form) ? { member: null, form } : undefined;
  }
  const members = Object.keys(rows[0]?.row ?? {});
  const found: DateKey[] = [];
  for (const m of members) {
    const form = dateFormOf(rows[0]?.row[m]);
    if (form !== undefined && rows.every((r) => dateFormOf(r.row[m]) === form)) found.push({ member: m, form });
  }
  const rank = (k: DateKey): number => {
    const i = DATE_NAMES.indexOf((k.member ?? '').toLowerCase());
    return (i === -1 ? 50 : i) + (k.form === 'date' ? 0 : 1);
  };
  found.sort((a, b) => rank(a) - rank(b));
  return found[0];
}

/** Row members holding a JSON number in every row that has them (the date member excluded). */
export function numericMembers(rows: readonly { row: Json }[], date: DateKey): string[] {
  const seen = new Map<string, boolean>();
  for (const { row } of rows) {
    for (const [k, v] of Object.entries(row)) {
      if (k === date.member) continue;
      seen.set(k, (seen.get(k) ?? true) && typeof v === 'number' && Number.isFinite(v));
    }
  }
  return [...seen].filter(([, ok]) => ok).map(([k]) => k);
}

/** What a member's name says it counts, if anything (the name's words, not its exact spelling). */
export function kindByName(member: string): CounterKind | undefined {
  const words = member
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
  const has = (...ws: string[]): boolean => ws.some((w) => words.includes(w));
  if (has('spend', 'cost', 'costs', 'usd', 'price', 'billed', 'charge', 'charges', 'amount', 'dollars')) return 'spend_usd';
  if (has('cached', 'cache', 'reasoning', 'audio', 'image', 'images', 'rejected', 'errors', 'failed')) return undefined;
  if (has('prompt', 'input', 'context')) return 'prompt_tokens';
  if (has('completion', 'output', 'generated', 'generation')) return 'completion_tokens';
  if (has('token', 'tokens')) return 'total_tokens';
  if (has('request', 'requests', 'req', 'reqs', 'call', 'calls', 'count', 'n', 'num')) return 'requests';
  return undefined;
}

/** What the probe's delta says a member counts: +1 request, + the completion's token counts. */
function kindsByDelta(delta: number, usage: DeltaProbe['usage']): CounterKind[] {
  const kinds: CounterKind[] = [];
  if (delta === 1) kinds.push('requests');
  if (delta === usage.prompt_tokens) kinds.push('prompt_tokens');
  if (delta === usage.completion_tokens) kinds.push('completion_tokens');
  if (delta === usage.total_tokens) kinds.push('total_tokens');
  if (delta > 0 && !Number.isInteger(delta)) kinds.push('spend_usd');
  return kinds;
}

function expectedDelta(kind: CounterKind, usage: DeltaProbe['usage']): string {
  return kind === 'requests' ? '1' : kind === 'spend_usd' ? 'its price' : String(usage[kind]);
}

/**
 * Counters by name first (a name says what a member means), confirmed or completed by the probe's
 * delta: a member no name places is taken for the kind its delta alone matches.
 */
export function matchCounters(members: readonly string[], probe: DeltaProbe | undefined): { counters: UsageShape['counters']; unplaced: string[] } {
  const counters: UsageShape['counters'] = {};
  const claimed = new Set<string>();
  const byName = new Map<CounterKind, string[]>();
  for (const m of members) {
    const k = kindByName(m);
    if (k !== undefined) byName.set(k, [...(byName.get(k) ?? []), m]);
  }
  for (const kind of counterKinds) {
    const named = byName.get(kind) ?? [];
    if (named.length === 0) continue;
    // Several members named alike (tokens, total_tokens): the one whose delta fits, else the shortest name.
    const fits = probe === undefined ? [] : named.filter((m) => kindsByDelta(probe.moved[m] ?? 0, probe.usage).includes(kind));
    const member = (fits.length > 0 ? fits : [...named].sort((a, b) => a.length - b.length))[0] as string;
    claimed.add(member);
    if (probe === undefined) counters[kind] = { member, by: 'name' };
    else if (fits.includes(member)) counters[kind] = { member, by: 'name+delta' };
    else counters[kind] = { member, by: 'name', note: `one completion moved it by ${probe.moved[member] ?? 0}, expected ${expectedDelta(kind, probe.usage)}` };
  }
  if (probe !== undefined) {
    for (const kind of counterKinds) {
      if (counters[kind] !== undefined) continue;
      const fits = members.filter((m) => !claimed.has(m) && kindsByDelta(probe.moved[m] ?? 0, probe.usage).includes(kind));
      // Only an unambiguous delta places a member (prompt and completion tokens may be equal).
      if (fits.length === 1 && fits.every((m) => kindsByDelta(probe.moved[m] ?? 0, probe.usage).filter((k) => counters[k] === undefined).length === 1)) {
        const member = fits[0] as string;
        counters[kind] = { member, by: 'delta' };
        claimed.add(member);
      }
    }
  }
  return { counters, unplaced: members.filter((m) => !claimed.has(m)) };
}

/** The shape of a usage body, from names only (`probe` adds the delta evidence). Undefined when no dated rows are found. */
export function discoverShape(body: unknown, probe?: DeltaProbe): UsageShape | undefined {
  const rows = locateRows(body);
  if (rows === undefined) return undefined;
  const list = rowsAt(body, rows) ?? [];
  const date = findDateKey(list, rows);
  if (date === undefined) return undefined;
  const { counters, unplaced } = matchCounters(numericMembers(list, date), probe);
  return { rows, date, counters, unplaced };
}

/** The rows of a body read with a shape: day and counters, in the server's order; undefined when the body does not have that shape. */
export function readRows(body: unknown, shape: UsageShape): UsageRow[] | undefined {
  const list = rowsAt(body, shape.rows);
  if (list === undefined) return undefined;
  const out: UsageRow[] = [];
  for (const { key, row } of list) {
    const date = dayOf(shape.date.member === null ? key : row[shape.date.member], shape.date.form);
    if (date === undefined) return undefined;
    const r: UsageRow = { date };
    for (const kind of counterKinds) {
      const m = shape.counters[kind]?.member;
      const v = m === undefined ? undefined : row[m];
      if (typeof v === 'number') r[kind] = v;
    }
    out.push(r);
  }
  return out;
}

/** The numeric members of one day's row (all of them, placed or not), for the probe's delta. */
export function membersOfDay(body: unknown, day: string): Record<string, number> | undefined {
  const loc = locateRows(body);
  if (loc === undefined) return undefined;
  const list = rowsAt(body, loc) ?? [];
  const date = findDateKey(list, loc);
  if (date === undefined) return list.length === 0 ? {} : undefined;
  const out: Record<string, number> = {};
  for (const { key, row } of list) {
    if (dayOf(date.member === null ? key : row[date.member], date.form) !== day) continue;
    for (const [k, v] of Object.entries(row)) if (typeof v === 'number' && k !== date.member) out[k] = (out[k] ?? 0) + v;
  }
  return out;
}

/** "data[].{day, n_requests, tokens}" style summary for reports and skip reasons. */
export function describeShape(shape: UsageShape): string {
  const where = shape.rows.pointer === '' ? '(the body)' : shape.rows.pointer;
  const date = shape.date.member === null ? `keyed by ${shape.date.form}` : `${shape.date.member} (${shape.date.form})`;
  const counters = counterKinds.filter((k) => shape.counters[k] !== undefined).map((k) => `${k}=${shape.counters[k]?.member} [${shape.counters[k]?.by}]`);
  return `rows at ${where} (${shape.rows.form}), day ${date}, counters ${counters.length === 0 ? 'none' : counters.join(', ')}`;
}

/** What `days` does, from the answers to no `days` and to `days=7` (reported; the profile's USAGE-003/004/005 judge it). */
export interface DaysContract {
  /** Rows of the answer without `days` (or to the first `days` accepted when it is required). */
  defaultRows: number;
  /** Distinct days those rows span, first to last. */
  defaultSpanDays: number;
  /** `honoured`: days=7 answered at most 7 days of rows; `ignored`: the same rows as without it; `rejected`: a 4xx; `required`: without it the server refused. */
  param: 'honoured' | 'ignored' | 'rejected' | 'required' | 'other';
}

export interface UsageDiscovery {
  /** Path (with query) that answers the rows; the seed-grounded checks read it. */
  path: string;
  shape: UsageShape;
  /** The probe completion's usage and how today's row moved, or why there was none. */
  probe: DeltaProbe | { skipped: string };
  days: DaysContract;
}

/** What iari worked out about the server's open shapes, for the report. */
export interface Discoveries {
  usage?: UsageDiscovery;
}
