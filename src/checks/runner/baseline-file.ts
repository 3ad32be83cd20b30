// The known-failures file of `iari test --baseline FILE` (docs/conformance.md, "Known failures"):
//
//   known:
//     - id: CHAT-012
//       reason: refusal field missing, tracked in ISSUE-123
//       expires: 2027-01-31        # optional, YYYY-MM-DD: the entry holds through that day
//       server-version: 0.6.3      # optional: the entry applies only to a run given --server-version 0.6.3
//
// Read once before any traffic; any problem is a configuration error (exit 2) naming file and line.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Node, parseDocument } from 'yaml';
import { flowNestedTooDeeply } from '../../yaml-nesting.ts';
import { HarnessError, HarnessErrorCode } from '../../errors.ts';
import { clip, quoted } from '../../clip.ts';

// yaml is loaded when a baseline is read or written: `iari test` without --baseline does not pay its import (issue 41).
const require = createRequire(import.meta.url);
const yaml = (): typeof import('yaml') => require('yaml') as typeof import('yaml');

export interface BaselineEntry {
  id: string;
  reason: string;
  /** Last day the entry holds (YYYY-MM-DD, UTC). */
  expires?: string;
  /** The entry applies only to a run whose --server-version equals this. */
  serverVersion?: string;
  /** 1-based line of the entry in the file, for messages. */
  line: number;
}

export interface Baseline {
  file: string;
  entries: BaselineEntry[];
}

const entryKeys = new Set(['id', 'reason', 'expires', 'server-version']);

function configError(file: string, line: number | undefined, message: string): HarnessError {
  return new HarnessError(HarnessErrorCode.CONFIG_INVALID, `iari test: ${file}${line === undefined ? '' : `:${line}`}: ${message}`, {
    hint: 'each entry of "known:" needs id and reason, optionally expires (YYYY-MM-DD) and server-version; see docs/conformance.md',
  });
}

/** True for a real calendar date written YYYY-MM-DD. */
export function isIsoDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text;
}

/**
 * Parses a baseline file's text. `knownIds` is the registry's requirement IDs: an entry naming
 * another ID is an error too, as with --only and --skip.
 */
export function parseBaseline(text: string, file: string, knownIds: ReadonlySet<string>): Baseline {
  const { isMap, isScalar, isSeq, LineCounter, parseDocument } = yaml();
  const counter = new LineCounter();
  if (flowNestedTooDeeply(text)) throw configError(file, undefined, 'not valid YAML iari can read: nested too deeply');
  let doc: ReturnType<typeof parseDocument>;
  try {
    doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  } catch (error) {
    // The yaml parser recurses per level: a few thousand nested "- - -" closed at once overflow the stack.
    if (error instanceof RangeError) throw configError(file, undefined, 'not valid YAML iari can read: nested too deeply');
    throw error;
  }
  const lineOf = (node: Node | null | undefined): number | undefined => (node?.range === undefined || node.range === null ? undefined : counter.linePos(node.range[0]).line);
  const firstError = doc.errors[0];
  if (firstError !== undefined) {
    const line = firstError.linePos?.[0].line ?? counter.linePos(firstError.pos[0]).line;
    throw configError(file, line, `not valid YAML: ${clip(firstError.message.split('\n')[0] ?? '', 200)}`);
  }
  const root = doc.contents;
  if (root === null || (isScalar(root) && (root.value === null || root.value === undefined))) return { file, entries: [] };
  if (!isMap(root)) throw configError(file, lineOf(root), 'the file must be a mapping with a "known:" list');
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    if (key !== 'known') throw configError(file, lineOf(pair.key as Node), `unknown key ${quoted(key)} (only "known" is allowed)`);
  }
  const list = root.get('known', true);
  if (list === undefined || list === null || (isScalar(list) && list.value === null)) return { file, entries: [] };
  if (!isSeq(list)) throw configError(file, lineOf(list as Node), '"known" must be a list of entries');
  const entries: BaselineEntry[] = [];
  const seen = new Map<string, number>();
  for (const item of list.items) {
    const line = lineOf(item as Node) ?? 0;
    if (!isMap(item)) throw configError(file, line, 'an entry must be a mapping with id and reason');
    const fields = new Map<string, { value: unknown; line: number }>();
    for (const pair of item.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      const keyLine = lineOf(pair.key as Node) ?? line;
      if (!entryKeys.has(key)) throw configError(file, keyLine, `unknown key ${quoted(key)} (allowed: ${[...entryKeys].join(', ')})`);
      const value = pair.value as Node | null;
      if (value !== null && !isScalar(value)) throw configError(file, keyLine, `"${key}" must be a single value`);
      fields.set(key, { value: value === null ? null : value.value, line: keyLine });
    }
    const text = (key: string, required: boolean): string | undefined => {
      const f = fields.get(key);
      if (f === undefined || f.value === null || f.value === undefined) {
        if (required) throw configError(file, line, `entry has no "${key}"`);
        return undefined;
      }
      const s = String(f.value).trim();
      if (s === '') throw configError(file, f.line, `"${key}" is empty`);
      return s;
    };
    const id = text('id', true) as string;
    const reason = text('reason', true) as string;
    if (!knownIds.has(id)) throw configError(file, fields.get('id')?.line ?? line, `unknown requirement ID ${quoted(id)} (iari requirements lists every ID)`);
    const previous = seen.get(id);
    if (previous !== undefined) throw configError(file, line, `${id} is listed twice (first on line ${previous})`);
    seen.set(id, line);
    const expires = text('expires', false);
    if (expires !== undefined && !isIsoDate(expires)) throw configError(file, fields.get('expires')?.line ?? line, `expires must be a date YYYY-MM-DD, got ${quoted(expires)}`);
    const serverVersion = text('server-version', false);
    entries.push({ id, reason, line, ...(expires === undefined ? {} : { expires }), ...(serverVersion === undefined ? {} : { serverVersion }) });
  }
  return { file, entries };
}

export function readBaseline(file: string, knownIds: ReadonlySet<string>): Baseline {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `iari test: cannot read baseline ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  return parseBaseline(text, file, knownIds);
}

/** The text of a baseline file listing `entries` (reasons kept; the caller redacts them). */
export function baselineYaml(entries: readonly Omit<BaselineEntry, 'line'>[], header: string): string {
  const known = entries.map((e) => ({
    id: e.id,
    reason: e.reason,
    ...(e.expires === undefined ? {} : { expires: e.expires }),
    ...(e.serverVersion === undefined ? {} : { 'server-version': e.serverVersion }),
  }));
  const body = yaml().stringify({ known }, { lineWidth: 0 });
  return `${header
    .split('\n')
    .map((l) => `# ${l}`.trimEnd())
    .join('\n')}\n${body}`;
}
