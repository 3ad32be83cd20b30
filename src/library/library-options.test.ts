import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { isHarnessError } from '../errors.ts';
import { runLoad } from './load.ts';
import { runConformance } from './conformance.ts';

/** The usage or input error a library call refuses with, before any traffic. */
async function refusal(p: Promise<unknown>): Promise<{ message: string; hint: string | undefined; exitCode: number }> {
  try {
    await p;
  } catch (error) {
    if (!isHarnessError(error)) throw error;
    return { message: error.message, hint: error.hint, exitCode: error.exitCode };
  }
  throw new Error('expected a refusal');
}

describe('library options', () => {
  it('runLoad refuses an unknown key (a typo would be ignored and the default used), naming it and the nearest option', async () => {
    const r = await refusal(runLoad({ concurency: 4 } as never));
    expect(r).toMatchObject({ message: 'runLoad: unknown option "concurency"', hint: 'did you mean concurrency?', exitCode: 2 });
  });

  it('runConformance refuses an unknown key alike', async () => {
    const r = await refusal(runConformance({ grde: 'must' } as never));
    expect(r).toMatchObject({ message: 'runConformance: unknown option "grde"', hint: 'did you mean grade?', exitCode: 2 });
  });

  it('a file the library cannot read is named as the caller wrote the option, never as the CLI flag', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'iari-lib-'));
    const missing = join(dir, 'missing');
    const trace = await refusal(runLoad({ trace: missing }));
    expect(trace.message).toMatch(/^runLoad: cannot read trace .*missing: ENOENT$/);
    const dataset = await refusal(runLoad({ dataset: missing }));
    expect(dataset.message).toMatch(/^runLoad: dataset .*missing: /);
    const prompts = await refusal(runLoad({ prompts: missing }));
    expect(prompts.message).toMatch(/^runLoad: prompts .*missing: /);
    const badTools = join(dir, 'tools.json');
    writeFileSync(badTools, JSON.stringify([{ type: 'function', function: { name: 'f', parameters: { type: 'no-such-type' } } }]));
    const tools = await refusal(runLoad({ tools: badTools }));
    expect(tools.message).toMatch(/^runLoad: tools .*tools\.json: the parameters of f are not a JSON Schema/);
    for (const m of [trace, dataset, prompts, tools].map((x) => x.message)) expect(m).not.toMatch(/--|iari load/);
  });
});

describe('runLoad and runScenario share the CLI\'s entry', () => {
  it('runLoad refuses a target IARI_LOOPBACK_ONLY forbids before any traffic, as iari load does (it did not check before)', async () => {
    const t0 = performance.now();
    const r = await refusal(runLoad({ baseUrl: 'http://192.0.2.1:9/v1', token: 'sk-test-0123456789abcdef', duration: '1s' }));
    expect(r.message).toMatch(/IARI_LOOPBACK_ONLY=1/);
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it('runScenario runs a scenario against the bundled mock and records it in the result; a bad one names its key', async () => {
    const { runScenario } = await import('./run-scenario.ts');
    const scenario = { executor: { kind: 'closed' as const, concurrency: 2 }, workload: [{ kind: 'synthetic' as const, inputTokens: '20' }], request: { maxTokens: 4 }, run: { duration: '2s' }, slos: ['errors.rate<0.5'] };
    const { result } = await runScenario(scenario);
    expect(result.counts.ok).toBeGreaterThan(0);
    expect(result.scenario).toEqual({ ...scenario, search: { kind: 'none' } });
    const bad = await refusal(runScenario({ executor: { kind: 'open', rate: 5, ramp: '10s' }, run: { duration: '1s' } }));
    expect(bad.message).toBe('runScenario: executor.ramp (10 s) is longer than the run (run.duration 1 s): the rate would never reach executor.rate; shorten executor.ramp or lengthen run.duration');
    const typo = await refusal(runScenario({ executor: { kind: 'closed', concurency: 2 } } as never));
    expect(typo.message).toBe('runScenario: executor.concurency: unknown key');
  }, 30_000);
});

describe('one connection shape', () => {
  it('runConformance takes caFile, insecure and headers as runLoad does, refused by the same rules, and no longer the validated connection object', async () => {
    const base = { baseUrl: 'http://127.0.0.1:9/v1', token: 'sk-test-0123456789abcdef' };
    const load = await refusal(runLoad({ ...base, headers: { Authorization: 'Bearer x' } }));
    const conf = await refusal(runConformance({ ...base, headers: { Authorization: 'Bearer x' } }));
    expect(conf.message.replace('runConformance', 'runLoad')).toBe(load.message);
    const missing = join(mkdtempSync(join(tmpdir(), 'iari-ca-')), 'missing.pem');
    const loadCa = await refusal(runLoad({ ...base, caFile: missing }));
    const confCa = await refusal(runConformance({ ...base, caFile: missing }));
    expect(confCa.message.replace('runConformance', 'runLoad')).toBe(loadCa.message);
    expect((await refusal(runConformance({ ...base, connection: { caFile: null, insecure: false, headers: [] } } as never))).message).toBe('runConformance: unknown option "connection"');
  });
});
