import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pythonClient, runPython, type PythonJob, type PythonSlot } from './python-worker.ts';

// The driver's process, bounded: stand-in interpreters (shell scripts) play a driver that greets and
// then never answers, one that prints something else, and one that is missing.

const dir = mkdtempSync(join(tmpdir(), 'iari-pyworker-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function script(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

const job: PythonJob = { op: 'create', base_url: 'http://127.0.0.1:9/v1', api_key: 'stand-in', model: 'm', prompt: 'p', tool: {}, tool_prompt: 't', tool_result: {}, timeout_s: 1 };

describe('openai-python driver process', () => {
  it('a job the driver never answers ends within its bound, and the process is ended', async () => {
    const slot: PythonSlot = { interpreter: script('silent', 'echo \'{"ready":{"openai":"9.9.9"}}\'; exec sleep 60') };
    expect(await pythonClient(slot)).toEqual({ version: '9.9.9' });
    const started = Date.now();
    const out = await runPython(slot, job, 500);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(out).toEqual({ timedOut: expect.stringMatching(/gave no result within 1 s \(the process was ended\)/) });
    slot.stop?.();
  });

  it('an interpreter that prints something else than the greeting, or that is missing, makes the operations unavailable, saying which', async () => {
    expect(await pythonClient({ interpreter: script('chatty', 'echo hello') })).toEqual({ unavailable: expect.stringMatching(/printed something else than the driver's greeting/) });
    expect(await pythonClient({ interpreter: join(dir, 'no-such-python') })).toEqual({ unavailable: expect.stringMatching(/^no Python interpreter at .*no-such-python$/) });
    expect(await pythonClient({ interpreter: script('missing-openai', 'echo \'{"missing":"openai is not installed for this interpreter"}\'') })).toEqual({ unavailable: expect.stringMatching(/^openai is not installed for this interpreter \(/) });
  });
});
