import { HarnessError, HarnessErrorCode } from './errors.ts';

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1 };

/**
 * A duration as users write it, in milliseconds: "500ms", "10s", "2m", "1h", "1m30s", or a bare
 * number of seconds ("1.5"). Undefined when it is none of those. The one parser behind every
 * duration flag of `iari test` and `iari load` and every duration option of the library.
 */
export function parseDuration(text: string): number | undefined {
  const t = text.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
  if (!/^(\d+(\.\d+)?(ms|h|m|s))+$/.test(t)) return undefined;
  let ms = 0;
  for (const m of t.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)) ms += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
  return Math.round(ms);
}

/**
 * A duration option checked against its range in seconds: undefined when absent, milliseconds when
 * valid, else a usage error (exit 2) naming the command and the option.
 */
export function durationOption(command: string, option: string, value: string | undefined, minS: number, maxS: number): number | undefined {
  return value === undefined ? undefined : checkDuration(command, `--${option}`, value, minS, maxS);
}

/**
 * A duration given as text (a flag's value or a library option), in milliseconds, checked against
 * its range in seconds; `label` is how the caller names it (`--duration`, `duration`).
 */
export function checkDuration(command: string, label: string, value: unknown, minS: number, maxS: number): number {
  const ms = typeof value === 'string' ? parseDuration(value) : undefined;
  if (ms === undefined) throw new HarnessError(HarnessErrorCode.USAGE, `${command}: ${label} must be a duration like 10s, 500ms, 2m, 1h or 1m30s, got ${typeof value === 'string' ? `"${value}"` : String(value)}`);
  if (ms < minS * 1000 || ms > maxS * 1000) throw new HarnessError(HarnessErrorCode.USAGE, `${command}: ${label} must be between ${minS}s and ${maxS}s, got ${ms / 1000}s`);
  return ms;
}

/** "250 ms", "10 s", "5 min", "1 h 30 min": how deadlines are written in messages. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60 || !Number.isInteger(s)) return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
  if (s % 60 !== 0) return `${s} s`;
  const min = s / 60;
  if (min < 60 || min % 60 !== 0) return `${min} min`;
  return `${min / 60} h`;
}
