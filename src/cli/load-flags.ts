// `iari load`'s flags, the rows of src/load/plan/load-flag-table.ts: each parsed into the option
// its row names (numbers as numbers against the row's range, durations as their text), then
// validated by the one validator, validateLoadOptions (src/load/plan/load-options.ts), which names
// each option by its flag here.
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { readTokenOrNone } from '../client/token.ts';
import { cliConnectionNames, connectionFlagSpec, connectionFromFlags } from '../client/connection-options.ts';
import { type LoadNames, type LoadOptionName } from '../load/plan/load-option-names.ts';
import { LOAD_OPTION_KEYS } from '../load/plan/load-option-names.ts';
import { validateLoadOptions, type LoadOptions, type LoadPlan, type ShellLoadOptions } from '../load/plan/load-options.ts';
import { flagChoice, flagNumber, flagSpecOf, LOAD_FLAGS, type LoadFlag, type LoadFlagRow } from '../load/plan/load-flag-table.ts';
import { overlay, scenarioToOptions, type LoadScenario } from '../load/plan/scenario.ts';
import { readScenarioFile } from '../load/plan/scenario-file.ts';
import { effectiveScenario } from '../load/plan/effective-scenario.ts';

type SpecEntry<R> = R extends { parse: 'switch' } ? { type: 'boolean' } : R extends { parse: 'list' } ? { type: 'string'; multiple: true } : { type: 'string' };
type TableSpec = { [R in Exclude<LoadFlagRow, { parse: 'shared' }> as R['flag']]: SpecEntry<R> } & { 'no-stream': { type: 'boolean' } };

/** The flags `iari load` parses: the table's rows (load-flag-table.ts), the connection flags it shares with iari test, and --help. */
export const loadFlagSpec = {
  ...(flagSpecOf(LOAD_FLAGS) as TableSpec),
  ...connectionFlagSpec,
  help: { type: 'boolean', short: 'h' },
} as const;

type Flag = keyof typeof loadFlagSpec;
type Row = LoadFlag & { option: LoadOptionName };
const optionRows = (LOAD_FLAGS as readonly LoadFlag[]).filter((r): r is Row => r.option !== undefined);
const isRunLoadOption = (option: string): option is keyof LoadOptions => (LOAD_OPTION_KEYS as readonly string[]).includes(option);

/**
 * Every runLoad option and the `iari load` flag it stands for, from the table (src/library/options-parity.test.ts
 * holds every flag to a place here or in CLI_ONLY_FLAGS). `stream: false` is `--no-stream`.
 */
export const OPTION_FLAGS = Object.fromEntries(optionRows.filter((r) => isRunLoadOption(r.option)).map((r) => [r.option, r.negatedBy ?? r.flag])) as Record<Exclude<keyof LoadOptions, 'token' | 'signal'>, Flag>;

/** Flags with no runLoad option, and why (the table's cliOnly). */
export const CLI_ONLY_FLAGS: Record<string, string> = {
  ...Object.fromEntries((LOAD_FLAGS as readonly LoadFlag[]).flatMap((r) => (r.cliOnly === undefined ? [] : [[r.flag, r.cliOnly]]))),
  stream: 'the stream option (true is the default)',
  help: 'the CLI help',
};

const FLAGS = Object.fromEntries(optionRows.map((r) => [r.option, r.negatedBy ?? r.flag])) as Record<Exclude<LoadOptionName, 'token'>, string>;

/** `iari load` names each option by its flag. */
export const CLI_LOAD_NAMES: LoadNames = {
  who: 'iari load',
  name: (option: LoadOptionName) => (option === 'stream' ? '--stream / --no-stream' : option === 'token' ? '--token-env' : `--${FLAGS[option]}`),
  connection: cliConnectionNames('load'),
};

export type LoadFlagValues = { [K in Flag]?: (typeof loadFlagSpec)[K] extends { multiple: true } ? string[] : (typeof loadFlagSpec)[K]['type'] extends 'boolean' ? boolean : string };

/** Options that may be given as undefined (an absent flag), dropped before validation. */
type Loose<T> = { [K in keyof T]?: T[K] | undefined };

/** exactOptionalPropertyTypes: an absent flag is an absent option, never `undefined` given. */
const given = <T extends object>(loose: Loose<T>): T => Object.fromEntries(Object.entries(loose).filter(([, value]) => value !== undefined)) as T;

const usage = (message: string): HarnessError => new HarnessError(HarnessErrorCode.USAGE, `iari load: ${message}`);

/** The flags as typed options (the connection validated here: `--header 'Name: env:VAR'` reads the environment). */
export function loadOptionsFromFlags(v: LoadFlagValues): { options: LoadOptions; shell: ShellLoadOptions } {
  const connection = connectionFromFlags('load', v);
  if (v.stream === true && v['no-stream'] === true) throw usage('give --stream or --no-stream, not both');
  const options: Record<string, unknown> = {};
  const shell: Record<string, unknown> = { connection };
  const values = v as Record<string, string | boolean | string[] | undefined>;
  for (const row of optionRows) {
    if (row.parse === 'shared') continue;
    // `--stream` is the default; `--no-stream` writes false.
    const text = values[row.flag];
    const value =
      row.negatedBy !== undefined ? (values[row.negatedBy] === true ? false : undefined)
        : typeof text !== 'string' ? text
          : row.parse === 'number' ? flagNumber('iari load', row, text)
            : flagChoice('iari load', row, text);
    if (value !== undefined) (isRunLoadOption(row.option) ? options : shell)[row.option] = value;
  }
  return { options: options as LoadOptions, shell: shell as ShellLoadOptions };
}

/** `iari load`'s flags (over a `--scenario` file, when given), parsed and validated before any traffic (exit 2 on a bad one). */
export function planFromFlags(v: LoadFlagValues): LoadPlan {
  return scenarioFromFlags(v).plan;
}

/** The plan and the effective scenario (what load.json records): the file's values, each flag given over them. */
export function scenarioFromFlags(v: LoadFlagValues): { plan: LoadPlan; scenario: LoadScenario } {
  const flags = loadOptionsFromFlags(v);
  const { report, json, quiet, connection, ...search } = flags.shell;
  const connectionGiven = v['ca-file'] !== undefined || v.insecure !== undefined || v.header !== undefined;
  const file = v.scenario === undefined ? { options: {}, shell: {} } : scenarioToOptions(readScenarioFile(v.scenario));
  const merged = overlay(file, { options: flags.options, shell: search });
  const shell: ShellLoadOptions = { ...merged.shell, ...given({ report, json, quiet }), ...(connectionGiven && connection !== undefined ? { connection } : {}) };
  const tokenGiven = merged.options.baseUrl !== undefined || v['token-env'] !== undefined || v['token-file'] !== undefined;
  // Issue 43: "A token is required even when the server has no auth." With no token source named and
  // $IARI_TOKEN unset, the requests carry no Authorization (the plan's token is empty, said before
  // any traffic); a named source (--token-env, --token-file) must still hold one.
  const readOrNone = (): string => readTokenOrNone('iari load', { tokenEnv: v['token-env'], tokenFile: v['token-file'] });
  const plan = validateLoadOptions(merged.options, CLI_LOAD_NAMES, { ...shell, recordsToDisk: true, ...(tokenGiven ? { readToken: readOrNone } : {}) });
  return { plan, scenario: effectiveScenario(merged.options, merged.shell, plan) };
}
