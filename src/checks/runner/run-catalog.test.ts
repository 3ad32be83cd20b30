import { describe, expect, it } from 'vitest';
import { createCheckContext } from '../context/check-context.ts';
import type { CheckDef } from '../context/check-types.ts';
import { runChecksInProcess } from './run-catalog.ts';
import { openaiPythonClientChecks } from '../areas/clients-openai-python.ts';
import { openaiPythonResponsesClientChecks } from '../areas/clients-openai-python-responses.ts';

// Issue 41: a slow resource a check needs (openai-python's driver process) starts when the run
// starts, beside the checks before it, and only for a check the run will run.

function check(name: string, ids: string[], log: string[], extra: Partial<CheckDef> = {}): CheckDef {
  return {
    name,
    area: 'clients',
    ids,
    title: name,
    prepare: () => void log.push(`prepare ${name}`),
    run: async (_ctx, j) => {
      log.push(`run ${name}`);
      for (const id of ids) j.pass(id);
    },
    ...extra,
  };
}

describe('runChecksInProcess', () => {
  it('prepares every selected check before the first check runs, and no check it will not run', async () => {
    const ctx = createCheckContext({ root: 'http://127.0.0.1:9', token: 'stand-in', seed: 1, target: 'external', includeLimits: false });
    const log: string[] = [];
    const { prepare: _, ...plain } = check('a', ['X-001'], log);
    const checks = [plain, check('b', ['X-002'], log), check('c', ['X-003'], log), check('d', ['X-004'], log, { needsLimits: true })];
    await runChecksInProcess(ctx, checks, () => 'MUST', { selected: new Set(['X-001', 'X-002', 'X-004']) });
    await ctx.close();
    expect(log).toEqual(['prepare b', 'run a', 'run b']);
  });

  it("the openai-python operations start the run's driver when prepared, before any of them runs", () => {
    const defs = [...openaiPythonClientChecks, ...openaiPythonResponsesClientChecks];
    expect(defs.length).toBeGreaterThan(0);
    for (const d of defs) expect(d.prepare, d.name).toBeTypeOf('function');
    const started: string[] = [];
    const ctx = createCheckContext({ root: 'http://127.0.0.1:9', token: 'stand-in', seed: 1, target: 'external', includeLimits: false, python: '/nonexistent/python-for-iari-test' });
    for (const d of defs) d.prepare?.(ctx);
    started.push(ctx.python?.stop === undefined ? 'not started' : 'started');
    ctx.python?.stop?.();
    expect(started).toEqual(['started']);
  });
});
