// Every scenario shipped in examples/ runs: `iari load --scenario examples/X.yaml` against the
// bundled mock, shortened by flags (which win over the file), and records the scenario it ran.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { run } from '../../src/cli/load-command.ts';
import { readScenarioFile } from '../../src/load/plan/scenario-file.ts';

const dir = join(import.meta.dirname, '..', '..', 'examples');
const examples = readdirSync(dir).filter((f) => /\.(ya?ml|json)$/.test(f)).sort();
const tmp = mkdtempSync(join(tmpdir(), 'iari-examples-'));

beforeAll(() => {
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
});
afterAll(() => vi.restoreAllMocks());

/** Short enough for a test: each run 1 s, a capacity search within 20 s, repeats twice. */
function shortened(file: string): string[] {
  const s = parse(readFileSync(join(dir, file), 'utf8')) as { search?: { kind: string }; executor?: { ramp?: string } };
  const flags = ['--duration', '1s', '--warmup', '0'];
  if (s.executor?.ramp !== undefined) flags.push('--ramp', '500ms');
  if (s.search?.kind === 'capacity') flags.push('--budget', '20s', '--tolerance', '50%');
  if (s.search?.kind === 'repeat') flags.push('--repeat', '2');
  return flags;
}

describe('the shipped example scenarios', () => {
  it('there are examples to run', () => {
    expect(examples.length).toBeGreaterThanOrEqual(5);
  });

  it.each(examples)('%s is a valid scenario, runs against the bundled mock and records what it ran', async (file) => {
    const scenario = readScenarioFile(join(dir, file));
    const report = join(tmp, file);
    const code = await run(['--scenario', join(dir, file), ...shortened(file), '--quiet', '--report', report]);
    // 0: every SLO met; 3: one breached on a 1-second run. Never a usage error or a crash.
    expect([0, 3]).toContain(code);
    const result = JSON.parse(readFileSync(join(report, 'load.json'), 'utf8')) as { scenario: { run: Record<string, unknown>; executor: unknown; workload?: unknown; slos?: unknown } };
    expect(result.scenario.run).toMatchObject({ duration: '1s', warmup: '0' });
    const ramp = scenario.executor !== undefined && 'ramp' in scenario.executor ? { ramp: '500ms' } : {};
    expect(result.scenario.executor).toEqual({ ...scenario.executor, ...ramp });
    expect(result.scenario.workload).toEqual(scenario.workload);
    expect(result.scenario.slos).toEqual(scenario.slos);
    // An embeddings scenario sent embeddings, every answer checked and counted.
    if (scenario.workload?.some((p) => p.kind === 'embeddings') === true) expect((result as { embeddings?: { inputs: number } }).embeddings?.inputs).toBeGreaterThan(0);
  }, 120_000);
});
