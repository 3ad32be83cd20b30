import { describe, expect, it, vi } from 'vitest';
import { isHarnessError } from '../errors.ts';
import { parseFlags } from './args.ts';
import { loadFlagSpec, planFromFlags } from './load-flags.ts';

/** The usage error (exit 2) `iari load ARGV` gives before any traffic, or null when the flags are accepted. */
function refusal(argv: string[]): string | null {
  try {
    planFromFlags(parseFlags('load', argv, loadFlagSpec).values);
    return null;
  } catch (error) {
    if (!isHarnessError(error) || error.exitCode !== 2) throw error;
    return error.message;
  }
}

describe('iari load flags refused before any traffic', () => {
  it('a negative number gets the range message of its flag, not parseArgs\' "argument is ambiguous"', () => {
    expect(refusal(['--rate', '-1'])).toBe('iari load: --rate must be a number from 0.01 to 100000, got "-1"');
    expect(refusal(['--seed', '-3'])).toBe('iari load: --seed must be an integer from 0 to 2147483647, got "-3"');
    expect(refusal(['--concurrency', '-2.5'])).toMatch(/^iari load: --concurrency must be an integer from 1/);
  });

  it('--turns 0 is a count of turns, and says so', () => {
    expect(refusal(['--turns', '0'])).toBe('iari load: --turns: the mean must be from 1 to 1000000 turns, got 0');
    expect(refusal(['--turns', 'x'])).toMatch(/--turns must be MEAN or MEAN,STDEV in turns/);
    expect(refusal(['--input-tokens', '0'])).toMatch(/from 1 to 1000000 tokens/);
  });

  it('LOAD-TOOLS: a tool_calls SLO without --tools is refused (it could only end in no data)', () => {
    expect(refusal(['--slo', 'tool_calls.invalid_rate<0.01'])).toMatch(/^iari load: --slo 'tool_calls.invalid_rate<0.01' judges tool calls: it needs --tools/);
    expect(refusal(['--slo', 'tool_calls.invalid_rate<0.01', '--tools', 'builtin'])).toBeNull();
  });

  it('a --ramp longer than the run is refused; one that fits the warmup and duration is accepted', () => {
    expect(refusal(['--rate', '5', '--ramp', '20s', '--duration', '10s'])).toMatch(/^iari load: --ramp \(20 s\) is longer than the run \(--duration 10 s\)/);
    expect(refusal(['--rate', '5', '--ramp', '12s', '--warmup', '5s', '--duration', '10s'])).toBeNull();
    expect(refusal(['--rate', '5', '--ramp', '10s', '--duration', '10s'])).toBeNull();
  });

  it('LOAD-REASONING: ttfo is an SLO metric', () => {
    expect(refusal(['--slo', 'ttfo.p95<1s'])).toBeNull();
  });

  it('a bare number as a duration is seconds, and --help says so', async () => {
    const plan = planFromFlags(parseFlags('load', ['--duration', '2', '--warmup', '0.5'], loadFlagSpec).values);
    expect([plan.durationS, plan.warmupS]).toEqual([2, 0.5]);
    const out: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
    try {
      await (await import('./load-command.ts')).run(['--help']);
    } finally {
      write.mockRestore();
    }
    expect(out.join('').replace(/\s+/g, ' ')).toContain('a bare number is seconds');
  });
});
