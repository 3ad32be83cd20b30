// `iari test`'s flags, the rows of src/library/test-flag-table.ts: the parse spec, --help, and each
// flag read into the runConformance option its row names (durations as milliseconds, numbers as
// numbers, lists split), then validated by the one validator, validateTestOptions, which names each
// option by its flag here.
import { renderSections, type HelpLayout } from '../flag-help.ts';
import { flagChoice, flagNumber, flagSpecOf, helpSectionsOf, optionFlagsOf } from '../flag-table.ts';
import { parseDuration } from '../duration.ts';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { readTokenOrNone } from '../client/token.ts';
import { connectionFlagSpec, connectionFromFlags, connectionHelpSection } from '../client/connection-options.ts';
import { parsePace } from '../checks/rate-limits/pace.ts';
import { TEST_FLAGS, TEST_SECTIONS, type TestFlag, type TestFlagRow } from '../library/test-flag-table.ts';
import type { TestOptions } from '../library/test-options.ts';

type SpecEntry<R> = R extends { parse: 'switch' } ? { type: 'boolean' } : R extends { parse: 'list' | 'member' } ? { type: 'string'; multiple: true } : { type: 'string' };
type TableSpec = { [R in Exclude<TestFlagRow, { parse: 'shared' }> as R['flag']]: SpecEntry<R> };

const rows = TEST_FLAGS as readonly TestFlag[];

/** node:util parseArgs' spec of test rows: `member` rows repeat like lists. */
export function testFlagSpecOf(table: readonly TestFlag[]): ReturnType<typeof flagSpecOf> {
  return flagSpecOf(table.map((r) => (r.parse === 'member' ? { ...r, parse: 'list' } : r)));
}

/** The flags `iari test` parses: the table's rows, the connection flags it shares with iari load, and --help. */
export const testFlagSpec = {
  ...(testFlagSpecOf(rows) as TableSpec),
  ...connectionFlagSpec,
  help: { type: 'boolean', short: 'h' },
} as const;

export type TestFlagValues = { [K in keyof typeof testFlagSpec]?: (typeof testFlagSpec)[K] extends { multiple: true } ? string[] : (typeof testFlagSpec)[K]['type'] extends 'boolean' ? boolean : string };

/** iari test's help: the text at column 23, a head too long for it on a line of its own. */
const TEST_LAYOUT: HelpLayout = { column: 23, longHead: 'above' };

/** The flag lines of iari test --help, section by section (the connection section is iari load's too, in its layout). */
export function testFlagHelp(table: readonly TestFlag[]): string {
  return helpSectionsOf(table, TEST_SECTIONS, { connection: connectionHelpSection })
    .map((s) => (s === connectionHelpSection ? renderSections([s]) : renderSections([s], TEST_LAYOUT)))
    .join('\n');
}

/** How `iari test` names each option: by its flag (the token by --token-env, the flag that names its source). */
export function testFlagNamer(table: readonly TestFlag[]): (name: keyof TestOptions) => string {
  const flags = optionFlagsOf(table);
  return (name) => {
    const flag = name === 'token' ? 'token-env' : flags[name];
    return flag === undefined ? name : `--${flag}`;
  };
}

export const testFlagName = testFlagNamer(rows);

const usage = (message: string): HarnessError => new HarnessError(HarnessErrorCode.USAGE, `iari test: ${message}`);

const commaList = (text: string): string[] => text.split(',');

/** One row's value as its option (undefined when the flag is absent). */
function read(row: TestFlag, value: string | boolean | string[] | undefined): unknown {
  if (value === undefined) return row.fromEnv === undefined ? undefined : process.env[row.fromEnv];
  if (typeof value === 'boolean') return value;
  if (Array.isArray(value)) {
    const items = value.flatMap(commaList);
    if (row.parse !== 'member') return items;
    const named = items.map((s) => s.trim()).filter((s) => s !== '');
    for (const item of named) flagChoice('iari test', row, item);
    return named.length > 0;
  }
  switch (row.parse) {
    case 'number':
      return flagNumber('iari test', row, value);
    case 'ids':
      return commaList(value);
    case 'duration': {
      // The one parser (src/duration.ts); the range is the validator's (validateTestOptions).
      const ms = parseDuration(value);
      if (ms === undefined) throw usage(`--${row.flag} must be a duration like 10s, 500ms, 2m, 1h or 1m30s, got "${value}"`);
      return ms;
    }
    case 'pace': {
      const perSecond = parsePace(value);
      if (perSecond === undefined) throw usage(`--${row.flag} must be a rate like 5/s, 0.5/s or 90/min, got "${value}"`);
      return perSecond;
    }
    default:
      return value;
  }
}

/** The flags as runConformance's options (absent flags absent), before validation. */
export function testOptionsFromFlags(values: TestFlagValues, table: readonly TestFlag[] = rows): TestOptions {
  const options: Record<string, unknown> = {};
  const given = values as Record<string, string | boolean | string[] | undefined>;
  for (const row of table) {
    if (row.option === undefined || row.cliOnly !== undefined || row.parse === 'shared') continue;
    const value = read(row, given[row.flag]);
    if (value !== undefined) options[row.option] = value;
  }
  options['connection'] = connectionFromFlags('test', values);
  if (values['no-token'] === true) {
    // Issue 43: --no-token says the server has no auth; a token source beside it contradicts it.
    const source = values['token-env'] !== undefined ? '--token-env' : values['token-file'] !== undefined ? '--token-file' : (process.env['IARI_TOKEN']?.trim() ?? '') !== '' ? '$IARI_TOKEN (set)' : undefined;
    if (source !== undefined) throw usage(`--no-token says the server has no auth; ${source} names a token: give one or the other`);
  } else if (values['base-url'] !== undefined) options['token'] = readTokenOrNone('iari test', { tokenEnv: values['token-env'], tokenFile: values['token-file'] });
  return options as TestOptions;
}
