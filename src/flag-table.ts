// A command's flags as one table of rows, the machinery `iari load` (src/load/plan/load-flag-table.ts)
// and `iari test` (src/library/test-flag-table.ts) share: a row says the flag, the option it writes
// (or why only the CLI reads it), its closed set or range, its help and its section; from the rows
// come node:util parseArgs' spec, the --help sections, each option's range and set, and the flag
// each option is named by in a usage error.

import { HarnessError, HarnessErrorCode } from './errors.ts';
import { choiceMessage, numberMessage, type NumberRule } from './flag-messages.ts';
import type { FlagSection } from './flag-help.ts';

/**
 * How a row's text is read. Common to both tables: `switch` a boolean, `list` repeatable, `shared`
 * parsed and documented with the connection flags (connection-options.ts), `number` checked against
 * `rule`; anything else is one string value, read as the command's own kinds say.
 */
export interface TableFlag<Section extends string = string, Parse extends string = string> {
  /** The flag, without dashes. */
  flag: string;
  /** Its argument as --help shows it (`N`, `constant|poisson|gamma`); none for a switch. */
  arg?: string;
  /** The whole head when it is not `--flag ARG`. */
  head?: string;
  section: Section;
  parse: Parse | 'switch' | 'list' | 'shared' | 'number';
  /** The option it writes; none: the CLI reads it itself. */
  option?: string;
  /** A closed set of values (its --help argument is them, `a|b`), refused alike by flag and option. */
  choices?: readonly string[];
  /** The range of a number (or, for a command's own kinds such as durations, of what it reads). */
  rule?: NumberRule;
  /** Why the library has no option for it. */
  cliOnly?: string;
  /** A flag that writes the option false (`--no-stream`). */
  negatedBy?: string;
  help?: readonly string[];
}

export type ParseSpec = Record<string, { type: 'string' | 'boolean'; multiple?: true }>;

/** node:util parseArgs' spec of the rows (the shared rows are connection-options.ts's). */
export function flagSpecOf(rows: readonly TableFlag[]): ParseSpec {
  const spec: ParseSpec = {};
  for (const r of rows) {
    if (r.parse === 'shared') continue;
    spec[r.flag] = r.parse === 'switch' ? { type: 'boolean' } : r.parse === 'list' ? { type: 'string', multiple: true } : { type: 'string' };
    if (r.negatedBy !== undefined) spec[r.negatedBy] = { type: 'boolean' };
  }
  return spec;
}

/** Each option's range, from the rows that have one. */
export function numberRulesOf(rows: readonly TableFlag[]): Record<string, NumberRule> {
  return Object.fromEntries(rows.flatMap((r) => (r.rule !== undefined && r.option !== undefined ? [[r.option, r.rule]] : [])));
}

/** Each option's closed set of values. */
export function choicesOf(rows: readonly TableFlag[]): Record<string, readonly string[]> {
  return Object.fromEntries(rows.flatMap((r) => (r.choices !== undefined && r.option !== undefined ? [[r.option, r.choices]] : [])));
}

/** The flag each option is written by (the first row that writes it). */
export function optionFlagsOf(rows: readonly TableFlag[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of rows) if (r.option !== undefined && !(r.option in out)) out[r.option] = r.flag;
  return out;
}

/** The head --help shows. */
export function headOf(r: TableFlag): string {
  const arg = r.arg ?? r.choices?.join('|');
  return r.head ?? (arg === undefined ? `--${r.flag}` : `--${r.flag} ${arg}`);
}

/** Help sections from rows: one per title, in the titles' order; a section given whole (the connection flags) is used as it is. */
export function helpSectionsOf<S extends string>(rows: readonly TableFlag<S>[], titles: Readonly<Record<S, string>>, given: Partial<Record<S, FlagSection>> = {}): FlagSection[] {
  return (Object.entries(titles) as [S, string][]).map(([key, title]) =>
    given[key] ?? { title, rows: rows.filter((r) => r.section === key && r.help !== undefined).map((r) => ({ head: headOf(r), flags: r.negatedBy === undefined ? [r.flag] : [r.flag, r.negatedBy], help: r.help ?? [] })) },
  );
}

/** A number within a rule: finite, an integer where it says so, in its range. */
export function withinRule(rule: NumberRule, value: number): boolean {
  return Number.isFinite(value) && (!rule.integer || Number.isInteger(value)) && (rule.aboveMin === true ? value > rule.min : value >= rule.min) && value <= rule.max;
}

/**
 * A number row's text as a number (exit 2 naming the flag and its range when it is not one); the
 * range itself is the validator's to check, so the flag and the library refuse alike.
 */
export function flagNumber(who: string, row: TableFlag, text: string): number {
  const rule = row.rule ?? { min: -Infinity, max: Infinity, integer: false };
  const t = text.trim();
  if (!(rule.integer ? /^\d+$/ : /^\d+(\.\d+)?$/).test(t)) throw new HarnessError(HarnessErrorCode.USAGE, `${who}: ${numberMessage(`--${row.flag}`, rule, text)}`);
  return Number(t);
}

/** A choice row's text, one of its set (exit 2 naming the flag and the set otherwise), before any rule that combines flags. */
export function flagChoice(who: string, row: TableFlag, text: string): string {
  if (row.choices !== undefined && !row.choices.includes(text)) throw new HarnessError(HarnessErrorCode.USAGE, `${who}: ${choiceMessage(`--${row.flag}`, row.choices, text)}`);
  return text;
}
