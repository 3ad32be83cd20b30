// iari load --ab and its flags through the one flag path (load-flags.ts → validateLoadOptions → ab-plan.ts),
// and the scenario's search kind ab that load.json records so that --scenario runs it again.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isHarnessError } from '../../errors.ts';
import { abToken } from './ab-plan.ts';
import { scenarioToOptions } from './scenario.ts';
import { validateLoadOptions, type LoadPlan } from './load-options.ts';
import { scenarioNames } from './scenario.ts';
import { parseFlags } from '../../cli/args.ts';
import { CLI_LOAD_NAMES, loadFlagSpec, scenarioFromFlags } from '../../cli/load-flags.ts';

const A = 'http://127.0.0.1:8001';
const B = 'http://127.0.0.1:8002';
const flags = (argv: string[]): ReturnType<typeof scenarioFromFlags> => scenarioFromFlags(parseFlags('load', argv, loadFlagSpec).values);

function refusal(f: () => unknown): string | null {
  try {
    f();
    return null;
  } catch (error) {
    if (!isHarnessError(error) || error.exitCode !== 2) throw error;
    return error.message;
  }
}

const saved = process.env['IARI_TOKEN'];
beforeEach(() => {
  process.env['IARI_TOKEN'] = 'iari_sk_a_0001';
});
afterEach(() => {
  if (saved === undefined) delete process.env['IARI_TOKEN'];
  else process.env['IARI_TOKEN'] = saved;
});

describe('iari load --ab flags (parsed with every other flag)', () => {
  it('--ab, --ab-block, --ab-block-requests and --ab-assign make the plan\'s ab part; --duration is 60s unless given', () => {
    const { plan } = flags(['--base-url', A, '--ab', B, '--ab-block=2s', '--ab-block-requests', '30', '--quiet']);
    expect(plan.ab).toEqual({ baseUrlB: `${B}/v1`, blockS: 2, blockRequests: 30, assign: 'blocks' });
    expect(plan.durationS).toBe(60);
    expect(flags(['--base-url', A, '--ab', B, '--duration', '30s', '--ab-assign', 'random']).plan).toMatchObject({ durationS: 30, ab: { assign: 'random', blockS: 3, blockRequests: null } });
    expect(flags(['--base-url', A, '--concurrency', '4']).plan.ab).toBeNull();
  });

  it('bad A/B input is a usage error (exit 2) naming the flag: a block flag alone, a block out of range, too few pairs, a combination it cannot run', () => {
    expect(refusal(() => flags(['--base-url', A, '--ab-block', '3s']))).toBe('iari load: --ab-block, --ab-block-requests and --ab-assign need --ab');
    expect(refusal(() => flags(['--base-url', A, '--ab', B, '--ab-block', '0.5s']))).toMatch(/--ab-block/);
    expect(refusal(() => flags(['--base-url', A, '--ab', B, '--duration', '30s']))).toBe('iari load: --ab needs at least 6 pairs of blocks: --duration 30s holds 5 of --ab-block 3s per side (give --duration ≥ 36s)');
    expect(refusal(() => flags(['--base-url', A, '--ab', B, '--repeat', '3']))).toMatch(/--ab runs --duration against two servers: it cannot be combined with --sweep, --find-capacity, --repeat/);
    expect(refusal(() => flags(['--ab', B]))).toContain('give side A with --base-url');
    expect(refusal(() => flags(['--base-url', A, '--ab', B, '--ab-assign', 'alternate']))).toBe('iari load: --ab-assign must be blocks or random, got "alternate"');
    expect(refusal(() => flags(['--base-url', A, '--ab', B, '--ab-assign', 'random', '--ab-block-requests', '20']))).toMatch(/--ab-block-requests sizes the blocks/);
    expect(refusal(() => flags(['--base-url', A, '--ab', B, '--ab-assign', 'random', '--engine', 'autocannon']))).toMatch(/undici engine/);
    expect(refusal(() => flags(['--base-url', A, '--ab', B, '--ab-block-requests', '1']))).toMatch(/^iari load: --ab-block-requests must be an integer from 2/);
  });

  it("A's token goes to B only on A's origin or when named for B; --header values never go to another origin", () => {
    const { plan } = flags(['--base-url', A, '--ab', B]);
    const ab = plan.ab as NonNullable<LoadPlan['ab']>;
    expect(refusal(() => abToken(ab, plan, CLI_LOAD_NAMES, null))).toContain("name B's token (iari load --ab-token-env NAME");
    expect(abToken(ab, plan, CLI_LOAD_NAMES, 'iari_sk_b_0002')).toBe('iari_sk_b_0002');
    expect(abToken({ ...ab, baseUrlB: `${A}/other/v1` }, plan, CLI_LOAD_NAMES, null)).toBe('iari_sk_a_0001');
    const withHeader = flags(['--base-url', A, '--ab', B, '--header', 'x-org: v']).plan;
    expect(refusal(() => abToken(ab, withHeader, CLI_LOAD_NAMES, 'x'))).toMatch(/with --ab to another origin, leave them out/);
  });

  it('load.json\'s effective scenario records A/B as search kind ab, and that scenario gives the same plan again', () => {
    const { plan, scenario } = flags(['--base-url', A, '--ab', B, '--ab-block', '2s', '--ab-assign', 'random', '--duration', '40s', '--seed', '7']);
    expect(scenario.search).toEqual({ kind: 'ab', baseUrl: B, block: '2s', assign: 'random' });
    const again = scenarioToOptions(JSON.parse(JSON.stringify(scenario)));
    const replan = validateLoadOptions({ ...again.options, token: 'iari_sk_a_0001' }, scenarioNames('runScenario'), again.shell);
    expect(replan.ab).toEqual(plan.ab);
    expect(replan.durationS).toBe(40);
    expect(replan.seed).toBe(7);
  });

  it('a scenario names A/B options by their place in it', () => {
    const s = scenarioToOptions({ target: { baseUrl: A }, run: { duration: '12s' }, search: { kind: 'ab', baseUrl: B } });
    expect(refusal(() => validateLoadOptions({ ...s.options, token: 'iari_sk_a_0001' }, scenarioNames('runScenario'), s.shell))).toBe('runScenario: search.kind ab (search.baseUrl) needs at least 6 pairs of blocks: run.duration 12s holds 2 of search.block 3s per side (give run.duration ≥ 36s)');
  });
});
