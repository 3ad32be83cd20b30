import { parseArgs, type ParseArgsConfig } from 'node:util';
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
    return parseArgs({ args: argv, options, strict: true, allowPositionals });
  } catch (error) {
    throw new HarnessError(HarnessErrorCode.USAGE, `${command}: ${(error as Error).message}`, {
      hint: `see iari ${command} --help`,
    });
  }
}

export function parseIntegerFlag(command: string, flag: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) throw new HarnessError(HarnessErrorCode.USAGE, `${command}: --${flag} must be an integer, got "${value}"`);
  const n = Number(value);
  if (n < min || n > max) throw new HarnessError(HarnessErrorCode.USAGE, `${command}: --${flag} must be between ${min} and ${max}, got ${n}`);
  return n;
}

/** A duration flag in milliseconds, within [minS, maxS] seconds; else a usage error (exit 2). The one parser: src/duration.ts. */
export { durationOption as parseDurationFlag } from '../duration.ts';
