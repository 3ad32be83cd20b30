import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../errors.ts';
import type { LoadPlan } from '../load/plan/load-options.ts';
import { checkAbPlan, takeAbFlags } from './ab-flags.ts';

function exitCode(f: () => unknown): { code: number; message: string } {
  try {
    f();
  } catch (error) {
    return isHarnessError(error) ? { code: error.exitCode, message: error.message } : { code: -1, message: String(error) };
  }
  return { code: 0, message: '' };
}

const plan = (over: Partial<LoadPlan> = {}): LoadPlan =>
  ({ baseUrl: 'http://127.0.0.1:8001/v1', token: 'iari_sk_a_0001', durationS: 60, sweep: false, findCapacity: null, repeat: 1, shard: null, requests: null, workloadPlan: {}, connection: { headers: [] }, ...over }) as unknown as LoadPlan;

describe('iari load --ab flags', () => {
  it('takes --ab, --ab-block and --ab-token-env out of argv, normalises URL_B, and makes --duration 60s unless given', () => {
    const t = takeAbFlags(['--base-url', 'http://127.0.0.1:8001', '--ab', 'http://127.0.0.1:8002', '--ab-block=2s', '--ab-token-env', 'B_TOKEN', '--quiet']);
    expect(t.ab).toEqual({ baseUrlB: 'http://127.0.0.1:8002/v1', blockS: 2, tokenEnvB: 'B_TOKEN' });
    expect(t.rest).toEqual(['--base-url', 'http://127.0.0.1:8001', '--quiet', '--duration', '60s']);
    expect(takeAbFlags(['--ab', 'http://127.0.0.1:8002', '--duration', '30s']).rest).toEqual(['--duration', '30s']);
    expect(takeAbFlags(['--concurrency', '4'])).toEqual({ rest: ['--concurrency', '4'], ab: null });
  });

  it('bad A/B input is a usage error (exit 2) naming the flag: --ab-block alone, a block out of range, too few pairs, a combination it cannot run', () => {
    expect(exitCode(() => takeAbFlags(['--ab-block', '3s'])).message).toContain('--ab-block and --ab-token-env need --ab URL_B');
    expect(exitCode(() => takeAbFlags(['--ab', 'http://127.0.0.1:8002', '--ab-block', '0.5s'])).code).toBe(2);
    expect(exitCode(() => takeAbFlags(['--ab'])).message).toContain('--ab needs a value');
    const ab = { baseUrlB: 'http://127.0.0.1:8001/v1', blockS: 3, tokenEnvB: null };
    expect(exitCode(() => checkAbPlan(ab, plan({ durationS: 20 }))).message).toContain('--ab needs at least 4 pairs of blocks: --duration 20s holds 3');
    expect(exitCode(() => checkAbPlan(ab, plan({ repeat: 3 }))).code).toBe(2);
    expect(exitCode(() => checkAbPlan(ab, plan({ baseUrl: null }))).message).toContain('give side A with --base-url');
  });

  it("A's token goes to B only on A's origin or when named for B with --ab-token-env; --header values never go to another origin", () => {
    const other = { baseUrlB: 'http://127.0.0.1:8002/v1', blockS: 3, tokenEnvB: null };
    expect(exitCode(() => checkAbPlan(other, plan())).message).toContain("name B's token with --ab-token-env NAME");
    expect(checkAbPlan({ ...other, tokenEnvB: 'B_TOKEN' }, plan(), { B_TOKEN: 'iari_sk_b_0002' })).toEqual({ tokenB: 'iari_sk_b_0002' });
    expect(checkAbPlan({ ...other, baseUrlB: 'http://127.0.0.1:8001/other/v1' }, plan())).toEqual({ tokenB: 'iari_sk_a_0001' });
    expect(exitCode(() => checkAbPlan({ ...other, tokenEnvB: 'B_TOKEN' }, plan({ connection: { headers: [{ name: 'x-org', value: 'v' }] } as unknown as LoadPlan['connection'] }), { B_TOKEN: 'x' })).code).toBe(2);
  });
});
