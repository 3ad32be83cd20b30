import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../../test-support/cli-in-process.ts';
import { withSlowerTtft } from '../../test-support/sample-compare.ts';
import { sampleLoadResult } from '../../test-support/sample-load-result.ts';
import { tinyConformanceReport } from '../../test-support/sample-reports.ts';
import { runAb } from '../load/search/ab-blocks.ts';
import type { LoadConfig } from '../load/run-load.ts';

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
    expect(r.stderr).toMatch(/^iari: ttft\.p50 changed \+\d+\.\d%, 95% interval .* wholly beyond \+10\.0%: gate ttft\.p50>\+10% failed$/m);
    expect(r.stdout).toMatch(/^ttft\.p50 .* YES \(blocks, within run\)$/m);
    expect(r.stdout).toMatch(/^ok {3}errors\.rate changed \+0\.00pp/m);
    const json = JSON.parse(readFileSync(join(out, 'compare.json'), 'utf8')) as { schema: string; load: { significant: string[] }; gates: { tripped: boolean; outcome: string }[] };
    expect(json.schema).toBe('iari.compare/2');
    expect(json.load.significant).toContain('ttft.p50');
    expect(json.gates.map((g) => g.outcome)).toEqual(['trip', 'hold']);
    expect(readFileSync(join(out, 'compare.html'), 'utf8')).toContain('TTFT CDF, base and new');
  }, 90_000);

  it('the same run on both sides: nothing significant; the p50 gate is inconclusive (exit 4: a within-run interval cannot hold it) unless --inconclusive pass (exit 0)', async () => {
    const a = runDir('same', { 'load.json': base });
    const r = await iari([a, join(a, 'load.json'), '--fail-on', 'ttft.p50>+10%', '--report', join(tmp, 'out2')]);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stdout).toContain('significant changes in this table (95% interval excludes 0 and, but for ratios, at least 5% relative): none');
    expect(r.stderr).toMatch(/^iari: ttft\.p50 changed \+0\.0%: gate ttft\.p50>\+10% is inconclusive, the 95% interval .* does not include run-to-run noise, so it cannot hold; to decide it: an estimate of run-to-run noise: --repeat 5 on both sides, or calibrate once with iari report noise/m);
    const pass = await iari([a, join(a, 'load.json'), '--fail-on', 'ttft.p50>+10%', '--inconclusive', 'pass', '--report', join(tmp, 'out2')]);
    expect(pass.code, pass.stderr).toBe(0);
    expect(pass.stderr).toContain('(--inconclusive pass: not failing)');
    expect((await iari([a, a, '--inconclusive', 'maybe'])).stderr).toContain('--inconclusive must be fail or pass, got "maybe"');
  }, 90_000);

  it('LOAD-COMPARE: 5 s runs of about 85 requests with TTFT 50% slower: ttft.p95>+10% is inconclusive (exit 4), naming the 100 requests p95 needs and the run length that would decide it, in compare.json too', async () => {
    const small = sampleLoadResult({ seed: 3, durationS: 5, rate: 17, stall: false, errors: false });
    const a = runDir('s-a', { 'load.json': small });
    const b = runDir('s-b', { 'load.json': withSlowerTtft(sampleLoadResult({ seed: 4, durationS: 5, rate: 17, stall: false, errors: false }), 1.5) });
    const out = join(tmp, 'out-small');
    const r = await iari([a, b, '--fail-on', 'ttft.p95>+10%', '--report', out]);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stdout).toMatch(/^\?\? {3}ttft\.p95 changed \+\d+\.\d%: gate ttft\.p95>\+10% is inconclusive, p95 needs ≥ 100 requests per side, this run had \d+ .*; to decide it: run ≥ \d+ s at this rate \([0-9.]+\/s\), or use --repeat 5 on both sides$/m);
    const json = JSON.parse(readFileSync(join(out, 'compare.json'), 'utf8')) as { gates: { outcome: string; inconclusive: { code: string } }[]; load: { rows: { key: string; test: string | null; untested: { kind: string } | null }[] } };
    expect(json.gates[0]).toMatchObject({ outcome: 'inconclusive', inconclusive: { code: 'samples' } });
    // No row says "test": null without saying why.
    expect(json.load.rows.filter((x) => x.test === null && x.untested === null)).toEqual([]);
  }, 90_000);

  it('LOAD-COMPARE: iari report noise over 3 runs writes noise.json, and --noise-floors widens the rows by it so an unchanged p50 holds (exit 0)', async () => {
    const dirs = [21, 22, 23, 24].map((seed) => runDir(`cal-${seed}`, { 'load.json': sampleLoadResult({ seed, stall: false, errors: false }) }));
    const noise = await runCli(['report', 'noise', ...dirs, '--report', join(tmp, 'noise')]);
    expect(noise.code, noise.stderr).toBe(0);
    expect(noise.stdout).toMatch(/^run-to-run noise over 4 runs at /m);
    expect(noise.stdout).toMatch(/^ttft\.p50 +×\/÷ 1\.\d{3} \(±\d+\.\d%\)$/m);
    const a = runDir('n-a', { 'load.json': sampleLoadResult({ seed: 3, stall: false, errors: false }) });
    const b = runDir('n-b', { 'load.json': sampleLoadResult({ seed: 4, stall: false, errors: false }) });
    const r = await iari([a, b, '--fail-on', 'ttft.p50>+10%', '--noise-floors', join(tmp, 'noise', 'noise.json'), '--report', join(tmp, 'out-noise')]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ok {3}ttft\.p50 changed .* \(blocks widened by the noise calibration\), wholly within \+10\.0%: gate holds$/m);
    expect((await runCli(['report', 'noise', dirs[0] as string, dirs[1] as string])).code).toBe(2);
  }, 90_000);

  it('the summary of significant changes lists only rows shown in the table, and the help names the test the code runs (blocks)', async () => {
    const a = runDir('sum-a', { 'load.json': base });
    const b = runDir('sum-b', { 'load.json': withSlowerTtft(base, 1.3) });
    const r = await iari([a, b, '--report', join(tmp, 'out-sum'), '--json']);
    const json = JSON.parse(r.stdout) as { load: { significant: string[] } };
    expect(json.load.significant).toContain('ttft.p90');
    const table = await iari([a, b, '--report', join(tmp, 'out-sum')]);
    const line = table.stdout.split('\n').find((l) => l.startsWith('significant changes')) ?? '';
    const shown = new Set(table.stdout.split('\n').map((l) => l.split(' ')[0]));
    const listed = (line.split(': ')[1] ?? '').split(';')[0]?.split(', ') ?? [];
    expect(listed).toContain('ttft.p50');
    expect(listed.filter((k) => !shown.has(k))).toEqual([]);
    expect(line).toMatch(/; \d+ more among the rows only in compare\.json$/);
    const help = await iari(['--help']);
    expect(help.stdout).toMatch(/^ {2}blocks {8}percentiles: block bootstrap over the 1 s timeslices/m);
    expect(help.stdout).not.toContain('exact bootstrap');
    expect(help.stdout).toContain('4 a gate is inconclusive');
  }, 90_000);

  it('conformance.new_fail>0 fails (exit 1, before a load gate) naming the new failure, from the Action layout conformance/ and load/', async () => {
    const a = runDir('ca', { 'conformance/conformance.json': conf, 'load/load.json': base });
    const b = runDir('cb', { 'conformance/conformance.json': broken, 'load/load.json': withSlowerTtft(base, 1.2) });
    const r = await iari([a, b, '--fail-on', 'conformance.new_fail>0,ttft.p50>+10%', '--report', join(tmp, 'out3')]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('iari: conformance.new_fail = 1 (AUTH-001), gate conformance.new_fail>0 failed');
    expect(r.stdout).toContain('changed verdicts: AUTH-001 pass->fail');
  }, 90_000);

  it('LOAD-COMPARE: one A/B run (iari load --ab) is compared B against A over its paired blocks: a 50% slower TTFT on B trips ttft.p95>+10% (exit 3)', async () => {
    let n = 0;
    const a = 'http://127.0.0.1:1/v1';
    const { result } = await runAb({
      config: { runId: 'ab1', baseUrl: a, token: 't', durationS: 36, warmupS: 0, requests: null } as unknown as LoadConfig,
      baseUrlB: 'http://127.0.0.1:2/v1',
      tokenB: 't',
      blockS: 3,
      run: async (c) => {
        const r = sampleLoadResult({ seed: ++n, durationS: 3, rate: 20, stall: false, errors: false });
        const at = Date.parse('2026-11-27T10:00:00Z') + n * 4000;
        const moved = { ...r, meta: { ...r.meta, runId: c.runId, measureStartEpochMs: at, measureEndEpochMs: at + 3000 } };
        return { result: c.baseUrl === a ? moved : withSlowerTtft(moved, 1.5), records: [] };
      },
    });
    const dir = runDir('ab', { 'load.json': result });
    const r = await iari([dir, '--fail-on', 'ttft.p95>+10%', '--report', join(tmp, 'out-ab')]);
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.stdout).toContain(`base ${dir} (A)  ->  new ${dir} (B: http://127.0.0.1:2/v1)`);
    expect(r.stderr).toMatch(/^iari: ttft\.p95 changed \+\d+\.\d%, 95% interval .* \(over the paired A\/B blocks\), wholly beyond \+10\.0%: gate ttft\.p95>\+10% failed$/m);
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
