import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startMockServer, type MockServer } from '../../mock-server/index.ts';
import { withSlowerTtft } from '../../test-support/sample-compare.ts';
import { sampleLoadResult } from '../../test-support/sample-load-result.ts';

// action.yml's script steps run here as the runner runs them: bash, the environment variables
// GitHub sets (GITHUB_ACTIONS, GITHUB_ACTION_PATH, GITHUB_WORKSPACE, RUNNER_TEMP, GITHUB_PATH,
// GITHUB_OUTPUT, GITHUB_STEP_SUMMARY) and the step's `env:` block; PATH gains what GITHUB_PATH
// collected, as the runner does between steps. iari is installed from this checkout (a directory
// spec: a link, offline); the default path (npm ci + npm pack of the action checkout) is the
// pack suite's business.

const root = fileURLToPath(new URL('../../', import.meta.url));
const action = parseYaml(readFileSync(join(root, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: { name: string; id?: string; if?: string; uses?: string; run?: string; env?: Record<string, string>; with?: Record<string, string> }[] };
};
const CANARY = 'sk-iari-action-canary-7f3a9c21d0';

let home: string;
let mock: MockServer;
/** The runner whose install step ran once (beforeAll); later runs start from its GITHUB_PATH. */
let installed: { runner: Runner; result: { code: number; stdout: string; stderr: string } };

interface Runner {
  workspace: string;
  temp: string;
  files: { path: string; output: string; summary: string };
}

function newRunner(from?: Runner): Runner {
  const dir = mkdtempSync(join(home, 'run-'));
  const workspace = join(dir, 'workspace');
  const temp = join(dir, 'runner-temp');
  mkdirSync(workspace);
  mkdirSync(temp);
  const files = { path: join(dir, 'github_path'), output: join(dir, 'github_output'), summary: join(dir, 'step_summary') };
  for (const f of Object.values(files)) writeFileSync(f, '');
  // A later job step sees the PATH the install step added.
  if (from !== undefined) writeFileSync(files.path, readFileSync(from.files.path, 'utf8'));
  return { workspace, temp, files };
}

/** The step's environment: the runner's variables, the PATH GITHUB_PATH built, the step's env block with inputs resolved. */
function stepEnv(r: Runner, stepEnvBlock: Record<string, string>): NodeJS.ProcessEnv {
  const added = readFileSync(r.files.path, 'utf8').split('\n').filter((l) => l.trim() !== '');
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && k !== 'INIT_CWD' && !k.startsWith('VITEST') && !k.startsWith('IARI_')) env[k] = v;
  return {
    ...env,
    PATH: [...added.reverse(), process.env['PATH'] ?? ''].join(':'),
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_ACTION_PATH: root,
    GITHUB_WORKSPACE: r.workspace,
    RUNNER_TEMP: r.temp,
    GITHUB_PATH: r.files.path,
    GITHUB_OUTPUT: r.files.output,
    GITHUB_STEP_SUMMARY: r.files.summary,
    npm_config_offline: 'true',
    ...stepEnvBlock,
  };
}

/** Resolves `${{ inputs.x }}` and `${{ steps.s.outputs.y }}` in a step's env block, as the runner does. */
function resolveEnv(block: Record<string, string> | undefined, inputs: Record<string, string>, outputs: Record<string, Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(block ?? {})) {
    out[k] = v.replace(/\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g, (_, name: string) => inputs[name] ?? action.inputs[name]?.default ?? '').replace(/\$\{\{\s*steps\.([\w-]+)\.outputs\.([\w-]+)\s*\}\}/g, (_, s: string, o: string) => outputs[s]?.[o] ?? '');
  }
  return out;
}

function readOutputs(r: Runner): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(r.files.output, 'utf8').split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) out[line.slice(0, at)] = line.slice(at + 1);
  }
  writeFileSync(r.files.output, '');
  return out;
}

function bash(script: string, env: NodeJS.ProcessEnv, cwd: string, timeoutMs: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-e', '-c', script], { cwd, env, timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

/** Runs the action's script steps in order with `inputs`, as the runner would (the upload step is GitHub's own action and is skipped). */
async function runAction(r: Runner, inputs: Record<string, string>, tokenEnv: Record<string, string> = {}): Promise<{ steps: Record<string, { code: number; stdout: string; stderr: string }>; outputs: Record<string, Record<string, string>> }> {
  const steps: Record<string, { code: number; stdout: string; stderr: string }> = {};
  const outputs: Record<string, Record<string, string>> = {};
  for (const step of action.runs.steps) {
    if (step.run === undefined) continue;
    if (step.name === 'Install iari' && readFileSync(r.files.path, 'utf8') !== '') continue;
    if (step.if !== undefined && step.id === 'load' && !(inputs['load'] === 'true' || (inputs['slo'] ?? '') !== '')) continue;
    if (step.if !== undefined && step.id === 'compare' && ((inputs['baseline'] ?? '') === '' || /\.ya?ml$/.test(inputs['baseline'] ?? ''))) continue;
    const env = { ...stepEnv(r, resolveEnv(step.env, inputs, outputs)), ...tokenEnv };
    const result = await bash(step.run, env, r.workspace, 240_000);
    steps[step.name] = result;
    if (step.id !== undefined) outputs[step.id] = readOutputs(r);
    if (result.code !== 0 && step.name !== 'Verdict') break;
  }
  return { steps, outputs };
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'iari-action-'));
  mock = await startMockServer({ faults: ['me-wrong-types'], receipts: false, defaultToken: CANARY });
  const runner = newRunner();
  const install = action.runs.steps.find((s) => s.name === 'Install iari');
  const result = await bash(install?.run as string, stepEnv(runner, resolveEnv(install?.env, { package: root }, {})), runner.workspace, 240_000);
  installed = { runner, result };
}, 300_000);

afterAll(async () => {
  await mock?.close();
  await rm(home, { recursive: true, force: true });
}, 120_000);

describe('action.yml', () => {
  it('is a composite action whose uses are pinned by commit SHA and whose inputs reach scripts only through env', () => {
    expect(action.runs.using).toBe('composite');
    for (const step of action.runs.steps) {
      if (step.uses !== undefined) expect(step.uses).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
      if (step.run !== undefined) {
        expect(step.run, step.name).not.toMatch(/\$\{\{/);
        const script = /action\/([\w-]+\.sh)/.exec(step.run)?.[1];
        expect(script !== undefined && existsSync(join(root, 'action', script)), step.name).toBe(true);
      }
    }
    const tokenUses = action.runs.steps.flatMap((s) => Object.entries(s.env ?? {}).filter(([, v]) => v.includes('inputs.token')).map(([k]) => k));
    expect(new Set(tokenUses)).toEqual(new Set(['IARI_TOKEN']));
    for (const name of ['base-url', 'token', 'no-token', 'grade', 'include', 'slo', 'load', 'concurrency', 'rate', 'arrival', 'duration', 'warmup']) expect(action.inputs, name).toHaveProperty(name);
    expect(readFileSync(join(root, 'action.yml'), 'utf8')).toMatch(/uses: actions\/upload-artifact@[0-9a-f]{40} # v\d/);
  });

  it('installs iari, runs iari test against the bundled mock, writes the job summary and outputs, and the verdict passes', async () => {
    expect(installed.result.code, installed.result.stderr).toBe(0);
    expect(readFileSync(installed.runner.files.path, 'utf8')).toContain(join(installed.runner.temp, 'iari-action', 'node_modules', '.bin'));
    expect(installed.result.stdout).toMatch(/iari action: 0\.\d+\.\d+ on Node v2\d/);
    const r = newRunner(installed.runner);
    const { steps, outputs } = await runAction(r, { package: root, grade: 'must' });
    expect(steps['iari test']?.code, steps['iari test']?.stderr).toBe(0);
    expect(outputs['test']).toEqual({ 'exit-code': '0', 'report-dir': 'reports/iari' });
    expect(existsSync(join(r.workspace, 'reports/iari/conformance/conformance.json'))).toBe(true);
    const summary = readFileSync(r.files.summary, 'utf8');
    expect(summary).toMatch(/PASSED|passed/);
    expect(summary).toMatch(/\*\*iari action\*\*: conformance passed/);
    expect(steps['Verdict']?.code).toBe(0);
    expect(steps['iari load']).toBeUndefined();
  }, 300_000);

  it('against a server that breaks a requirement: the test step records exit 1, the verdict fails the job with 1, and the token is nowhere in output, summary or reports', async () => {
    const r = newRunner(installed.runner);
    const { steps, outputs } = await runAction(r, { package: root, 'base-url': mock.url, token: CANARY, include: '' });
    expect(steps['iari test']?.code).toBe(0);
    expect(outputs['test']?.['exit-code']).toBe('1');
    expect(steps['Verdict']?.code).toBe(1);
    const everything = [...Object.values(steps).flatMap((s) => [s.stdout, s.stderr]), readFileSync(r.files.summary, 'utf8'), readFileSync(join(r.workspace, 'reports/iari/conformance/conformance.json'), 'utf8')].join('\n');
    expect(everything).toMatch(/ME-011/);
    expect(everything).not.toContain(CANARY);
  }, 300_000);

  it('runs iari load when SLOs are given, one --slo per line; a breached SLO makes the verdict exit 3', async () => {
    const r = newRunner(installed.runner);
    const { steps, outputs } = await runAction(r, { package: root, duration: '2s', concurrency: '2', slo: 'errors.rate<0.5\n  ttft.p99<1us  \n' });
    expect(steps['iari load']?.code, steps['iari load']?.stderr).toBe(0);
    expect(outputs['load']?.['exit-code']).toBe('3');
    expect(existsSync(join(r.workspace, 'reports/iari/load/load.json'))).toBe(true);
    const load = JSON.parse(readFileSync(join(r.workspace, 'reports/iari/load/load.json'), 'utf8')) as { slos: { expr: string; passed: boolean }[] };
    expect(load.slos.map((s) => [s.expr, s.passed])).toEqual([['errors.rate<0.5', true], ['ttft.p99<1us', false]]);
    expect(steps['Verdict']?.code).toBe(3);
    expect(readFileSync(r.files.summary, 'utf8')).toMatch(/load an SLO was breached/);
  }, 300_000);

  it('the verdict step maps the recorded exit codes: conformance first, then load, and a missing test run is a configuration error', async () => {
    const r = newRunner();
    const verdict = action.runs.steps.find((s) => s.name === 'Verdict')?.run as string;
    const cases: [Record<string, string>, number][] = [
      [{ TEST_CODE: '0', LOAD_CODE: '' }, 0],
      [{ TEST_CODE: '0', LOAD_CODE: '0' }, 0],
      [{ TEST_CODE: '1', LOAD_CODE: '3' }, 1],
      [{ TEST_CODE: '0', LOAD_CODE: '3' }, 3],
      [{ TEST_CODE: '2', LOAD_CODE: '' }, 2],
      // Issue 43: a run without a token (an unset secret) is not a pass.
      [{ TEST_CODE: '4', LOAD_CODE: '0' }, 4],
      [{ TEST_CODE: '', LOAD_CODE: '' }, 2],
      [{ TEST_CODE: '0', LOAD_CODE: '0', COMPARE_CODE: '3' }, 3],
      [{ TEST_CODE: '0', LOAD_CODE: '', COMPARE_CODE: '1' }, 1],
      [{ TEST_CODE: '0', LOAD_CODE: '', COMPARE_CODE: '0' }, 0],
    ];
    for (const [env, code] of cases) expect((await bash(verdict, stepEnv(r, env), r.workspace, 10_000)).code, JSON.stringify(env)).toBe(code);
  });

  it('baseline input: a *.yaml file goes to iari test --baseline; a report directory is compared under the fail-on gates, one per line, and a load regression records exit 3', async () => {
    const r = newRunner();
    const compareStep = action.runs.steps.find((s) => s.id === 'compare');
    expect(compareStep?.if).toContain('inputs.baseline');
    expect(readFileSync(join(root, 'action/run-test.sh'), 'utf8')).toMatch(/\*\.yaml \| \*\.yml\) args\+=\(--baseline "\$INPUT_BASELINE"\)/);
    const base = sampleLoadResult({ seed: 3, stall: false, errors: false });
    mkdirSync(join(r.workspace, 'previous/load'), { recursive: true });
    mkdirSync(join(r.workspace, 'reports/iari/load'), { recursive: true });
    writeFileSync(join(r.workspace, 'previous/load/load.json'), JSON.stringify(base));
    writeFileSync(join(r.workspace, 'reports/iari/load/load.json'), JSON.stringify(withSlowerTtft(base, 1.2)));
    // iari from this checkout's sources, so the step does not depend on the install step's build.
    const bin = join(r.temp, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'iari'), `#!/usr/bin/env bash\nexec "${process.execPath}" --import "${pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href}" "${join(root, 'src/cli/entry.ts')}" "$@"\n`, { mode: 0o755 });
    writeFileSync(r.files.path, `${bin}\n`);
    const env = { ...stepEnv(r, resolveEnv(compareStep?.env, { baseline: 'previous', 'fail-on': 'ttft.p50>+10%\n  errors.rate>+0.5pp \n' }, {})) };
    const result = await bash(compareStep?.run as string, env, r.workspace, 120_000);
    expect(result.code, result.stderr).toBe(0);
    expect(readOutputs(r)['exit-code'], result.stdout + result.stderr).toBe('3');
    // p50: its within-run interval lies wholly above +10% (errors.rate, tested over the requests, holds).
    expect(result.stderr).toMatch(/gate ttft\.p50>\+10% failed/);
    expect(existsSync(join(r.workspace, 'reports/iari/compare/compare.html'))).toBe(true);
    expect(readFileSync(r.files.summary, 'utf8')).toContain('### iari compare with the baseline');
  }, 180_000);
});
