import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../../test-support/cli-in-process.ts';
import { withSlowerTtft } from '../../test-support/sample-compare.ts';
import { sampleLoadResult } from '../../test-support/sample-load-result.ts';
import { tinyConformanceReport } from '../../test-support/sample-reports.ts';

const tmp = mkdtempSync(join(tmpdir(), 'iari-compare-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** `iari report compare ARGS` in this process (cli-in-process.ts). */
const iari = (args: string[]): Promise<CliRun> => runCli(['report', 'compare', ...args]);

function runDir(name: string, files: Record<string, unknown>): string {
  const dir = join(tmp, name);
  mkdirSync(dir, { recursive: true });
  for (const [f, v] of Object.entries(files)) {
    mkdirSync(join(dir, f, '..'), { recursive: true });
    writeFileSync(join(dir, f), JSON.stringify(v));
  }
  return dir;
}

const base = sampleLoadResult({ seed: 3, stall: false, errors: false });
const conf = tinyConformanceReport('iari_sk_compare_test_1');
const broken = { ...conf, results: conf.results.map((r) => (r.id === 'AUTH-001' ? { ...r, verdict: 'fail', failures: [{ message: 'now broken' }] } : r)) };

describe('iari report compare', () => {
  it('a 20% TTFT regression trips ttft.p50>+10%: exit 3, a message naming the metric and change, compare.json and compare.html written', async () => {
    const a = runDir('a', { 'load.json': base });
    const b = runDir('b', { 'load.json': withSlowerTtft(base, 1.2) });
    const out = join(tmp, 'out1');
    const r = await iari([a, b, '--fail-on', 'ttft.p50>+10%', '--fail-on', 'errors.rate>+0.5pp', '--report', out]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/^iari: ttft\.p50 changed \+\d+\.\d% \(significant, p=<0\.001\): gate ttft\.p50>\+10% failed$/m);
    expect(r.stdout).toMatch(/^ttft\.p50 .* YES \(blocks\)$/m);
    expect(r.stdout).toMatch(/^ok {3}errors\.rate changed \+0\.00pp/m);
    const json = JSON.parse(readFileSync(join(out, 'compare.json'), 'utf8')) as { schema: string; load: { significant: string[] }; gates: { tripped: boolean }[] };
    expect(json.schema).toBe('iari.compare/1');
    expect(json.load.significant).toContain('ttft.p50');
    expect(json.gates.map((g) => g.tripped)).toEqual([true, false]);
    expect(readFileSync(join(out, 'compare.html'), 'utf8')).toContain('TTFT CDF, base and new');
  }, 90_000);

  it('the same run on both sides: nothing significant, exit 0', async () => {
    const a = runDir('same', { 'load.json': base });
    const r = await iari([a, join(a, 'load.json'), '--fail-on', 'ttft.p50>+10%', '--report', join(tmp, 'out2')]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("significant changes (95% interval excludes 0 and, but for ratios, at least 5% relative, or the percentile's noise floor): none");
  }, 90_000);

  it('conformance.new_fail>0 fails (exit 1, before a load gate) naming the new failure, from the Action layout conformance/ and load/', async () => {
    const a = runDir('ca', { 'conformance/conformance.json': conf, 'load/load.json': base });
    const b = runDir('cb', { 'conformance/conformance.json': broken, 'load/load.json': withSlowerTtft(base, 1.2) });
    const r = await iari([a, b, '--fail-on', 'conformance.new_fail>0,ttft.p50>+10%', '--report', join(tmp, 'out3')]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('iari: conformance.new_fail = 1 (AUTH-001), gate conformance.new_fail>0 failed');
    expect(r.stdout).toContain('changed verdicts: AUTH-001 pass->fail');
  }, 90_000);

  it('bad input is exit 2 naming what is wrong: a missing run, one side only, a malformed gate', async () => {
    const a = runDir('only', { 'load.json': base });
    expect((await iari([a])).stderr).toContain('give exactly two runs');
    const missing = await iari([a, join(tmp, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`${join(tmp, 'nope')} does not exist`);
    const gate = await iari([a, a, '--fail-on', 'ttft.p95>10']);
    expect(gate.code).toBe(2);
    expect(gate.stderr).toContain("--fail-on 'ttft.p95>10': give the change with a unit");
  }, 90_000);
});
