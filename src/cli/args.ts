import { parseArgs, type ParseArgsConfig } from 'node:util';
import { numberMessage } from '../flag-messages.ts';
import { HarnessError, HarnessErrorCode } from '../errors.ts';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

/** What `parseFlags` returns (named, so the compiled declarations can spell it). */
export type ParsedFlags<O extends OptionSpec> = ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: boolean }>>;

/**
 * Strict flag parsing shared by every command: unknown flags and missing values are usage
 * errors (exit 2), reported with the command's name.
 */
export function parseFlags<O extends OptionSpec>(command: string, argv: string[], options: O, allowPositionals = false): ParsedFlags<O> {
  try {
    return parseArgs({ args: negativeValues(argv, options), options, strict: true, allowPositionals });
  } catch (error) {
    throw new HarnessError(HarnessErrorCode.USAGE, `${command}: ${(error as Error).message}`, {
      hint: `see iari ${command} --help`,
    });
  }
}

/**
 * `--rate -1` is a value flag followed by a negative number, which parseArgs refuses as "argument is
 * ambiguous" (it could be a flag). A number cannot be a flag, so it is handed over as `--rate=-1`
 * and the command's own range check names the flag and its range.
 */
function negativeValues(argv: readonly string[], options: OptionSpec): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const next = argv[i + 1];
    const spec = a.startsWith('--') && !a.includes('=') ? options[a.slice(2)] : undefined;
    if (spec?.type === 'string' && next !== undefined && /^-(\d|\.\d)/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

export function parseIntegerFlag(command: string, flag: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  // One wording for every command's flags (src/flag-messages.ts): `iari mock: --port must be an integer from 0 to 65535, got "x"`.
  const n = Number(value);
  if (!/^-?\d+$/.test(value) || n < min || n > max) throw new HarnessError(HarnessErrorCode.USAGE, `iari ${command}: ${numberMessage(`--${flag}`, { min, max, integer: true }, value)}`);
  return n;
}

/** A duration flag in milliseconds, within [minS, maxS] seconds; else a usage error (exit 2). The one parser: src/duration.ts. */
export { durationOption as parseDurationFlag } from '../duration.ts';
