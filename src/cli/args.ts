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

/** "10s", "500ms", "2m", "1h", "1.5" (seconds) -> milliseconds, within [minS, maxS] seconds; else a usage error (exit 2). */
export function parseDurationFlag(command: string, flag: string, value: string | undefined, minS: number, maxS: number): number | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (m === null) throw new HarnessError(HarnessErrorCode.USAGE, `${command}: --${flag} must be a duration like 10s, 500ms, 2m or 1h, got "${value}"`);
  const n = Number(m[1]);
  const s = m[2] === 'ms' ? n / 1000 : m[2] === 'm' ? n * 60 : m[2] === 'h' ? n * 3600 : n;
  if (s < minS || s > maxS) throw new HarnessError(HarnessErrorCode.USAGE, `${command}: --${flag} must be between ${minS}s and ${maxS}s, got ${s}s`);
  return Math.round(s * 1000);
}
