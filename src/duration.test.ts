import { describe, expect, it } from 'vitest';
import { isHarnessError } from './errors.ts';
import { durationOption, parseDuration } from './duration.ts';

describe('durations', () => {
  it('reads milliseconds, seconds, minutes, hours, compounds and bare seconds', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('10s')).toBe(10_000);
    expect(parseDuration('2m')).toBe(120_000);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(parseDuration('1m30s')).toBe(90_000);
    expect(parseDuration('1.5')).toBe(1500);
    expect(parseDuration(' 90 ')).toBe(90_000);
  });

  it('refuses what is not a duration', () => {
    for (const bad of ['', 'ten', '5 s', '-1s', '1d', 's', '1.s', '10sec']) expect(parseDuration(bad), bad).toBeUndefined();
  });

  it('checks the range of an option and names the command and option in its usage error', () => {
    expect(durationOption('iari load', 'duration', undefined, 0.1, 3600)).toBeUndefined();
    expect(durationOption('iari load', 'duration', '2m', 0.1, 3600)).toBe(120_000);
    let tooLong: unknown;
    try {
      durationOption('iari load', 'duration', '2h', 0.1, 3600);
    } catch (e) {
      tooLong = e;
    }
    expect(isHarnessError(tooLong) && tooLong.code).toBe('IARI_USAGE');
    expect((tooLong as Error).message).toBe('iari load: --duration must be between 0.1s and 3600s, got 7200s');
    expect(() => durationOption('iari test', 'run-timeout', 'soon', 1, 10)).toThrow('iari test: --run-timeout must be a duration');
  });
});
