// A bounded reader of the Prometheus text exposition format (version 0.0.4, the format vLLM, SGLang,
// TGI and llama.cpp's server answer on /metrics). It never throws on the text it is given: a line it
// cannot read is an issue (line number and why) and is skipped; text over its bounds is refused whole.
// Linear in the input: one pass over the lines, no backtracking pattern on untrusted text.

import { clip } from '../clip.ts';

export type FamilyType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  /** The sample's own name (e.g. `x_bucket`, `x_total`). */
  name: string;
  labels: Readonly<Record<string, string>>;
  value: number;
}

export interface Family {
  /** The declared name (TYPE line), or the sample name when undeclared. */
  name: string;
  type: FamilyType;
  help: string | null;
  samples: Sample[];
}

export interface Exposition {
  families: Map<string, Family>;
  samples: number;
}

export interface ParseIssue {
  line: number;
  why: string;
}

export interface ParseLimits {
  /** Bytes of text accepted (default 4 MiB). */
  maxBytes: number;
  /** Samples accepted (default 50,000). */
  maxSamples: number;
  /** Characters of one line (default 64 KiB). */
  maxLineChars: number;
  /** Labels of one sample (default 64). */
  maxLabels: number;
}

export const DEFAULT_PARSE_LIMITS: ParseLimits = { maxBytes: 4 * 1024 * 1024, maxSamples: 50_000, maxLineChars: 64 * 1024, maxLabels: 64 };

export type ParseResult =
  | { ok: true; exposition: Exposition; issues: ParseIssue[]; issueCount: number }
  | { ok: false; why: string };

/** At most this many issues are kept (issueCount counts them all). */
const KEPT_ISSUES = 20;
const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES: ReadonlySet<string> = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
/** Suffixes that attach a sample to a histogram or summary family declared under the base name. */
const PART_SUFFIXES = ['_bucket', '_sum', '_count', '_created'] as const;

export function parseExposition(text: string, limits: ParseLimits = DEFAULT_PARSE_LIMITS): ParseResult {
  if (text.length > limits.maxBytes) return { ok: false, why: `the text is ${text.length} characters, over the ${limits.maxBytes} accepted` };
  const families = new Map<string, Family>();
  const issues: ParseIssue[] = [];
  let issueCount = 0;
  let samples = 0;
  const issue = (line: number, why: string): void => {
    issueCount++;
    if (issues.length < KEPT_ISSUES) issues.push({ line, why });
  };
  const family = (name: string): Family => {
    let f = families.get(name);
    if (f === undefined) {
      f = { name, type: 'untyped', help: null, samples: [] };
      families.set(name, f);
    }
    return f;
  };
  let start = 0;
  let lineNo = 0;
  while (start <= text.length) {
    const nl = text.indexOf('\n', start);
    const end = nl === -1 ? text.length : nl;
    lineNo++;
    const raw = text.slice(start, end);
    start = end + 1;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.length > limits.maxLineChars) {
      issue(lineNo, `a line of ${line.length} characters, over the ${limits.maxLineChars} accepted`);
      if (nl === -1) break;
      continue;
    }
    const trimmed = line.trim();
    if (trimmed === '') {
      if (nl === -1) break;
      continue;
    }
    if (trimmed.startsWith('#')) {
      const m = readMeta(trimmed);
      if (m !== null) {
        const { kind, name, rest } = m;
        if (!NAME.test(name)) issue(lineNo, `# ${kind} names "${clip(name)}", not a metric name`);
        else if (kind === 'TYPE') {
          const t = rest.trim();
          if (!TYPES.has(t)) issue(lineNo, `# TYPE ${name} "${clip(t)}" is not counter, gauge, histogram, summary or untyped`);
          else {
            const f = family(name);
            if (f.type !== 'untyped' && f.type !== t) issue(lineNo, `# TYPE ${name} given twice (${f.type}, then ${t})`);
            else f.type = t as FamilyType;
          }
        } else family(name).help = unescapeHelp(rest);
      }
      if (nl === -1) break;
      continue;
    }
    const sample = readSample(trimmed, limits.maxLabels);
    if (typeof sample === 'string') issue(lineNo, sample);
    else {
      if (samples >= limits.maxSamples) return { ok: false, why: `more than ${limits.maxSamples} samples` };
      samples++;
      owner(families, sample.name, family).samples.push(sample);
    }
    if (nl === -1) break;
  }
  return { ok: true, exposition: { families, samples }, issues, issueCount };
}

/** The family a sample belongs to: a histogram/summary part, a counter's `_total`, or its own name. */
function owner(families: Map<string, Family>, name: string, make: (n: string) => Family): Family {
  for (const s of PART_SUFFIXES) {
    if (!name.endsWith(s)) continue;
    const base = families.get(name.slice(0, -s.length));
    if (base !== undefined && (base.type === 'histogram' || base.type === 'summary' || (s === '_created' && base.type === 'counter'))) return base;
  }
  if (name.endsWith('_total')) {
    const base = families.get(name.slice(0, -'_total'.length));
    if (base !== undefined && base.type === 'counter') return base;
  }
  return make(name);
}

// Exposition formats: "HELP lines may contain any sequence of UTF-8 characters (after the metric name), but the
// backslash and the line feed characters have to be escaped as \\ and \n, respectively." Any other backslash is kept.
function unescapeHelp(s: string): string {
  if (!s.includes('\\')) return s;
  return s.replace(/\\(\\|n)/g, (_m, c: string) => (c === 'n' ? '\n' : '\\'));
}

const isBlank = (c: string | undefined): boolean => c === ' ' || c === '\t';

/**
 * `# HELP name docstring` or `# TYPE name type`, or null for any other comment. Exposition formats:
 * "If the token is HELP, at least one more token is expected, which is the metric name. All
 * remaining tokens are considered the docstring"; tokens are split by blanks, read left to right
 * (a pattern here backtracked quadratically on a long line holding U+2028, and dropped its HELP).
 */
function readMeta(line: string): { kind: 'HELP' | 'TYPE'; name: string; rest: string } | null {
  let i = 1;
  while (isBlank(line[i])) i++;
  const kind = line.startsWith('HELP', i) ? 'HELP' : line.startsWith('TYPE', i) ? 'TYPE' : null;
  if (kind === null || !isBlank(line[i + 4])) return null;
  i += 4;
  while (isBlank(line[i])) i++;
  let end = i;
  while (end < line.length && !isBlank(line[end])) end++;
  if (end === i) return null;
  const name = line.slice(i, end);
  while (isBlank(line[end])) end++;
  return { kind, name, rest: line.slice(end) };
}

/** `name{a="b",...} value [timestamp]`, or why not. */
function readSample(line: string, maxLabels: number): Sample | string {
  let i = 0;
  while (i < line.length && line[i] !== '{' && line[i] !== ' ' && line[i] !== '\t') i++;
  const name = line.slice(0, i);
  if (!NAME.test(name)) return `"${clip(name)}" is not a metric name`;
  const labels: Record<string, string> = Object.create(null) as Record<string, string>;
  let count = 0;
  if (line[i] === '{') {
    i++;
    for (;;) {
      while (line[i] === ' ' || line[i] === ',') i++;
      if (i >= line.length) return `${name}: the label set is not closed`;
      if (line[i] === '}') {
        i++;
        break;
      }
      const eq = line.indexOf('=', i);
      if (eq === -1) return `${name}: a label without "="`;
      const key = line.slice(i, eq).trim();
      if (!LABEL_NAME.test(key)) return `${name}: "${clip(key)}" is not a label name`;
      i = eq + 1;
      while (line[i] === ' ') i++;
      if (line[i] !== '"') return `${name}: the value of label ${key} is not quoted`;
      i++;
      let value = '';
      let closed = false;
      while (i < line.length) {
        const c = line[i]!;
        if (c === '\\') {
          const n = line[i + 1];
          value += n === 'n' ? '\n' : n === '\\' ? '\\' : n === '"' ? '"' : `\\${n ?? ''}`;
          i += 2;
          continue;
        }
        if (c === '"') {
          closed = true;
          i++;
          break;
        }
        value += c;
        i++;
      }
      if (!closed) return `${name}: the value of label ${key} is not closed`;
      if (key in labels) return `${name}: label ${key} given twice`;
      if (++count > maxLabels) return `${name}: more than ${maxLabels} labels`;
      labels[key] = value;
    }
  }
  const rest = line.slice(i).trim().split(/[ \t]+/);
  if (rest.length < 1 || rest.length > 2 || rest[0] === '') return `${name}: expected a value (and an optional timestamp) after the name`;
  const value = readNumber(rest[0]!);
  if (value === null) return `${name}: "${clip(rest[0]!)}" is not a number`;
  if (rest.length === 2 && !/^-?\d+$/.test(rest[1]!)) return `${name}: the timestamp "${clip(rest[1]!)}" is not an integer`;
  return { name, labels, value };
}

// Exposition formats: "value is a float represented as required by Go's ParseFloat() function. In addition to
// standard numerical values, NaN, +Inf, and -Inf are valid values". ParseFloat reads "Inf" and "Infinity" (signed)
// and "NaN" in any case.
function readNumber(s: string): number | null {
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(s);
  if (special !== null) {
    if (special[2]?.toLowerCase() !== 'nan') return special[1] === '-' ? -Infinity : Infinity;
    return special[1] === '' ? NaN : null;
  }
  // One way to match each digit: `\d+\.?\d*` split a long run of digits every way before failing (quadratic).
  if (!/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(s)) return null;
  return Number(s);
}
