import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import parseReference from 'parse-prometheus-text-format';
import { DEFAULT_PARSE_LIMITS, parseExposition, type ParseLimits } from '../../src/server-metrics/prom-text.ts';
import { someText } from '../inputs.ts';
import { holds, neverThrows, show, text, utf8, type FuzzTarget } from '../target.ts';

// The Prometheus text exposition format 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format). `expected()` is a
// strict reading of its canonical form (single spaces, LF, one group per family, TYPE before the
// samples, one HELP and one TYPE per name, unique name and label set): on text it accepts, iari and
// the reference parser must both give exactly what it reads.

const SMALL: ParseLimits = { maxBytes: 48 * 1024, maxSamples: 200, maxLineChars: 512, maxLabels: 8 };
const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

interface ModelSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}
interface ModelFamily {
  name: string;
  type: string;
  help: string | null;
  samples: ModelSample[];
}

/** A value as Go's strconv.ParseFloat reads it ("NaN", "Inf", "Infinity" in any case, signed), decimal forms only. */
export function goFloat(s: string): number | null {
  if (/^[+-]?(inf|infinity)$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  if (/^nan$/i.test(s)) return NaN;
  if (!/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(s)) return null;
  return Number(s);
}

/** HELP docstring unescaping: "the backslash and the line feed characters have to be escaped as \\ and \n". */
function unescapeHelp(s: string): string | null {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const n = s[++i];
    if (n === '\\') out += '\\';
    else if (n === 'n') out += '\n';
    else return null;
  }
  return out;
}

/** `name{a="b",...} value [timestamp]` in canonical form, or null. */
function strictSample(line: string): ModelSample | null {
  let i = 0;
  while (i < line.length && line[i] !== '{' && line[i] !== ' ') i++;
  const name = line.slice(0, i);
  if (!NAME.test(name)) return null;
  const labels: Record<string, string> = Object.create(null) as Record<string, string>;
  if (line[i] === '{') {
    i++;
    if (line[i] === '}') return null;
    for (;;) {
      const eq = line.indexOf('=', i);
      if (eq === -1) return null;
      const key = line.slice(i, eq);
      if (!LABEL.test(key) || key in labels || line[eq + 1] !== '"') return null;
      i = eq + 2;
      let value = '';
      for (;;) {
        const c = line[i];
        if (c === undefined) return null;
        if (c === '"') break;
        if (c === '\\') {
          const n = line[i + 1];
          if (n === '\\') value += '\\';
          else if (n === '"') value += '"';
          else if (n === 'n') value += '\n';
          else return null;
          i += 2;
          continue;
        }
        value += c;
        i++;
      }
      labels[key] = value;
      i++;
      if (line[i] === ',') {
        i++;
        continue;
      }
      if (line[i] === '}') {
        i++;
        break;
      }
      return null;
    }
  }
  if (line[i] !== ' ') return null;
  const rest = line.slice(i + 1).split(' ');
  if (rest.length > 2 || (rest.length === 2 && !/^-?\d{1,18}$/.test(rest[1] ?? ''))) return null;
  const value = goFloat(rest[0] ?? '');
  if (value === null) return null;
  return { name, labels, value };
}

/** What a strict reader of the canonical form reads, or null when the text is not in it. */
export function expected(input: string): { families: ModelFamily[]; referenceDiffers: string | null } | null {
  // "Lines are separated by a line feed character (\n). The last line must end with a line feed character."
  if (input.includes('\r') || (input !== '' && !input.endsWith('\n'))) return null;
  let referenceDiffers: string | null = null;
  const families = new Map<string, ModelFamily>();
  const closed = new Set<string>();
  const seenSeries = new Set<string>();
  const typed = new Set<string>();
  let current: string | undefined;
  const enter = (name: string): ModelFamily | null => {
    if (current !== name) {
      if (closed.has(name)) return null;
      if (current !== undefined) closed.add(current);
      current = name;
    }
    let f = families.get(name);
    if (f === undefined) {
      f = { name, type: 'untyped', help: null, samples: [] };
      families.set(name, f);
    }
    return f;
  };
  /** The family a sample name belongs to: a declared histogram or summary's part, or its own. */
  const familyOf = (sample: string): { family: string; part: string } => {
    for (const suffix of ['_bucket', '_sum', '_count']) {
      if (!sample.endsWith(suffix)) continue;
      const base = families.get(sample.slice(0, -suffix.length));
      if (base !== undefined && (base.type === 'histogram' || (base.type === 'summary' && suffix !== '_bucket'))) return { family: base.name, part: suffix };
    }
    return { family: sample, part: '' };
  };
  for (const line of input.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) ([^ ]+)(?: (.*))?$/.exec(line);
      if (m === null) {
        // "Lines with a # as the first non-whitespace character are comments [...] If the token is HELP [...]": tokens are split by blanks.
        if (!line.startsWith('# ') || /^#[ \t]*(HELP|TYPE)([ \t]|$)/.test(line)) return null;
        // Documented: the reference trims the line, then reads one that no longer starts with "# " as a sample.
        if (!line.trim().startsWith('# ')) referenceDiffers = 'a comment line that is "#" once trimmed';
        continue;
      }
      const [, kind, name = '', rest] = m;
      if (!NAME.test(name)) return null;
      // A name another family's parts already use would make the grouping ambiguous.
      if (familyOf(name).family !== name) return null;
      for (const suffix of ['_bucket', '_sum', '_count', '_total', '_created']) if (families.has(`${name}${suffix}`) || (name.endsWith(suffix) && families.has(name.slice(0, -suffix.length)))) return null;
      const f = enter(name);
      if (f === null) return null;
      if (kind === 'HELP') {
        if (f.help !== null || rest === undefined || rest !== rest.trim() || /^\s|\s$/.test(rest)) return null;
        const help = unescapeHelp(rest);
        if (help === null) return null;
        f.help = help;
        // Documented (docs/fuzzing.md): the reference refuses a HELP line whose docstring is empty.
        if (help === '') referenceDiffers = 'HELP with an empty docstring';
      } else {
        if (rest === undefined || !TYPES.has(rest) || f.samples.length > 0 || typed.has(name)) return null;
        typed.add(name);
        f.type = rest;
      }
      continue;
    }
    const s = strictSample(line);
    if (s === null) return null;
    const { family, part } = familyOf(s.name);
    for (const suffix of ['_bucket', '_sum', '_count', '_total', '_created']) if (s.name.endsWith(suffix) && part === '' && families.has(s.name.slice(0, -suffix.length))) return null;
    const f = enter(family);
    if (f === null) return null;
    const series = `${s.name}\u0000${Object.keys(s.labels)
      .sort()
      .map((k) => `${k}=${s.labels[k] ?? ''}`)
      .join('\u0000')}`;
    if (seenSeries.has(series)) return null;
    seenSeries.add(series);
    if (f.type === 'histogram' && (part === '' || (part === '_bucket') !== ('le' in s.labels) || (part === '_bucket' && goFloat(s.labels['le'] ?? '') === null))) return null;
    if (f.type === 'summary' && (part === '') !== ('quantile' in s.labels)) return null;
    if (f.type === 'summary' && part === '' && goFloat(s.labels['quantile'] ?? '') === null) return null;
    f.samples.push(s);
  }
  return { families: [...families.values()], referenceDiffers };
}

interface ReferenceFamily {
  name: string;
  help: string;
  type: string;
  metrics: { labels?: Record<string, string>; value?: string }[];
}

const sameNumber = (a: number, b: number | null): boolean => b !== null && (a === b || (Number.isNaN(a) && Number.isNaN(b)));
const sameLabels = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean => {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a[k] === b[k]);
};

function run(input: Uint8Array): void {
  const source = text(input);
  for (const limits of [DEFAULT_PARSE_LIMITS, SMALL]) {
    const r = neverThrows(() => parseExposition(source, limits), 'parseExposition');
    if (!r.ok) {
      holds(source.length > limits.maxBytes || /samples/.test(r.why), () => `refused text within its bounds: ${r.why}`);
      continue;
    }
    holds(r.issues.length <= 20 && r.issueCount >= r.issues.length, () => `issues: ${r.issues.length} kept of ${r.issueCount}`);
    holds(r.issues.every((x, k) => x.line >= 1 && (k === 0 || x.line > (r.issues[k - 1]?.line ?? 0))), () => `issue lines not increasing: ${show(r.issues.map((x) => x.line))}`);
    let count = 0;
    for (const [name, f] of r.exposition.families) {
      holds(f.name === name && NAME.test(name), () => `family ${show(name)} is not a metric name`);
      for (const s of f.samples) {
        count++;
        holds(NAME.test(s.name) && (s.name === name || s.name.startsWith(name)), () => `sample ${show(s.name)} in family ${show(name)}`);
        const keys = Object.keys(s.labels);
        holds(keys.length <= limits.maxLabels && keys.every((k) => LABEL.test(k)), () => `labels ${show(keys)}`);
      }
    }
    holds(count === r.exposition.samples && count <= limits.maxSamples, () => `${count} samples held, ${r.exposition.samples} counted, ${limits.maxSamples} allowed`);
  }
  differential(source);
}

/** On text in the canonical form: iari, the reference parser and the strict reading agree. */
function differential(source: string): void {
  const strict = expected(source);
  if (strict === null) return;
  const model = strict.families;
  const ours = parseExposition(source);
  holds(ours.ok && ours.issueCount === 0, () => `iari refused canonical text: ${show(ours.ok ? ours.issues : ours.why)}`);
  if (!ours.ok) return;
  for (const m of model) {
    const f = ours.exposition.families.get(m.name);
    holds(f !== undefined, () => `iari has no family ${show(m.name)}`);
    holds(f.type === m.type && f.help === m.help, () => `family ${m.name}: iari reads ${f.type} ${show(f.help)}, the format says ${m.type} ${show(m.help)}`);
    holds(f.samples.length === m.samples.length, () => `family ${m.name}: iari reads ${f.samples.length} samples, the format says ${m.samples.length}`);
    m.samples.forEach((s, i) => {
      const o = f.samples[i];
      holds(o !== undefined && o.name === s.name && sameLabels(o.labels, s.labels) && sameNumber(o.value, s.value), () => `family ${m.name} sample ${i}: iari reads ${show(o)}, the format says ${show(s)}`);
    });
  }
  if (strict.referenceDiffers !== null) return;
  let ref: ReferenceFamily[];
  try {
    ref = parseReference(source) as ReferenceFamily[];
  } catch (error) {
    return holds(false, () => `the reference parser refused canonical text: ${(error as Error).message.slice(0, 200)}`);
  }
  for (const rf of ref) {
    const m = model.find((x) => x.name === rf.name);
    holds(m !== undefined, () => `the reference reads a family ${show(rf.name)} the format does not have`);
    holds(rf.type === m.type.toUpperCase() && rf.help === (m.help ?? ''), () => `family ${m.name}: the reference reads ${rf.type} ${show(rf.help)}, the format says ${m.type} ${show(m.help)}`);
    // The reference folds a histogram's or summary's lines into one object per label set (and drops the other labels): compared by family only.
    if (m.type === 'histogram' || m.type === 'summary') continue;
    holds(rf.metrics.length === m.samples.length, () => `family ${m.name}: the reference reads ${rf.metrics.length} samples, the format says ${m.samples.length}`);
    rf.metrics.forEach((r, i) => {
      const s = m.samples[i];
      holds(s !== undefined && sameLabels(r.labels ?? {}, s.labels) && sameNumber(s.value, goFloat(r.value ?? '')), () => `family ${m.name} sample ${i}: the reference reads ${show(r)}, the format says ${show(s)}`);
    });
  }
}

// Valid expositions: families of each type with escaped HELP text, labels with escaped values,
// every value form the format allows, optional timestamps.
const metricName = fc.stringMatching(/^[a-zA-Z_:][a-zA-Z0-9_:]{0,12}$/);
const labelName = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,8}$/).filter((n) => n !== 'le' && n !== 'quantile');
const escapeLabel = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const escapeHelp = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const value = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => String(d)),
  fc.constantFrom('+Inf', '-Inf', 'NaN', 'Inf', 'inf', '-infinity', 'nan', '1e3', '.5', '5.', '-0', '+1.5E-3'),
);
const labelSet = fc.uniqueArray(fc.tuple(labelName, someText(12)), { selector: ([k]) => k, maxLength: 4 });
const renderLabels = (pairs: readonly (readonly [string, string])[]): string => (pairs.length === 0 ? '' : `{${pairs.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}`);
const timestamp = fc.option(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }).map((t) => ` ${t}`), { nil: '' });

const family = fc
  .record({
    name: metricName,
    type: fc.option(fc.constantFrom('counter', 'gauge', 'histogram', 'summary', 'untyped'), { nil: undefined }),
    help: fc.option(someText(40).map((h) => h.trim()), { nil: undefined }),
    series: fc.uniqueArray(labelSet, { maxLength: 4, selector: (pairs) => pairs.map(([k, v]) => `${k}=${v}`).sort().join('\u0000') }),
    values: fc.array(fc.tuple(value, timestamp), { minLength: 8, maxLength: 8 }),
    bounds: fc.uniqueArray(value, { minLength: 1, maxLength: 3 }),
  })
  .map(({ name, type, help, series, values, bounds }) => {
    const lines: string[] = [];
    if (help !== undefined) lines.push(`# HELP ${name} ${escapeHelp(help)}`);
    if (type !== undefined) lines.push(`# TYPE ${name} ${type}`);
    let k = 0;
    const next = (): string => {
      const [v, t] = values[k++ % values.length] ?? ['0', ''];
      return `${v}${t}`;
    };
    for (const pairs of series) {
      if (type === 'histogram') {
        for (const b of bounds) lines.push(`${name}_bucket${renderLabels([...pairs, ['le', b]])} ${next()}`);
        lines.push(`${name}_sum${renderLabels(pairs)} ${next()}`, `${name}_count${renderLabels(pairs)} ${next()}`);
      } else if (type === 'summary') {
        for (const q of bounds) lines.push(`${name}${renderLabels([...pairs, ['quantile', q]])} ${next()}`);
        lines.push(`${name}_sum${renderLabels(pairs)} ${next()}`, `${name}_count${renderLabels(pairs)} ${next()}`);
      } else lines.push(`${name}${renderLabels(pairs)} ${next()}`);
    }
    return lines.join('\n');
  });

const exposition = fc.tuple(fc.array(family, { maxLength: 5 }), fc.boolean()).map(([fams, comment]) => utf8(`${comment ? '# a comment line\n' : ''}${fams.join('\n\n')}\n`));

export const promText: FuzzTarget = {
  name: 'prom-text',
  sources: ['src/server-metrics/prom-text.ts'],
  invariants: [
    'returns, never throws: a line it cannot read is an issue (at most 20 kept, in line order), text over its bounds is refused whole',
    'what it holds stays within its limits (samples, labels per sample) and every name it keeps is a metric or label name',
    'one input of up to 64 KiB takes at most 1 s (linear in the text: no backtracking pattern)',
    'on text in the canonical form, iari, parse-prometheus-text-format and a strict reading of the format agree on every family, type, HELP text and sample',
  ],
  reference: 'parse-prometheus-text-format 1.1.1',
  maxLen: 64 * 1024,
  timeBoundMs: 1_000,
  valid: exposition,
  seeds: () => [readFileSync(new URL('../../src/server-metrics/fixtures/llamacpp-metrics.txt', import.meta.url))],
  run,
};
