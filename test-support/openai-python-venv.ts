import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { packagePath } from '../src/package-root.ts';

// openai-python for the project's own tests: a venv made once with `python3 -m venv` and
// `pip install openai`, cached in the gitignored .cache/openai-python/venv (made under a temporary
// name and renamed, so test files that start together never see half a venv). pip resolves
// openai with the machine's own pip configuration; where python3, venv or the package index is
// missing, the caller skips with the reason. CI (`.ci/run`) reaches only the npm registry and
// Debian's archive, which carries no openai package: there the Python operations are skipped,
// saying why, and never passed.

const PIP_TIMEOUT_MS = 8 * 60_000;

export type OpenaiPython = { python: string; skip?: undefined } | { python?: undefined; skip: string };

let made: OpenaiPython | undefined;

function imports(python: string): boolean {
  return spawnSync(python, ['-c', 'import openai'], { stdio: 'ignore', timeout: 60_000 }).status === 0;
}

export function openaiPythonVenv(): OpenaiPython {
  if (made !== undefined) return made;
  const dir = packagePath('.cache/openai-python');
  const python = join(dir, 'venv', 'bin', 'python');
  if (existsSync(python) && imports(python)) return (made = { python });
  const probe = spawnSync('python3', ['-c', 'import venv, ensurepip'], { encoding: 'utf8', timeout: 60_000 });
  if (probe.error !== undefined || probe.status !== 0) return (made = { skip: `openai-python cannot be set up here: python3 with venv and ensurepip is missing (${probe.error?.message ?? probe.stderr.trim().split('\n').pop() ?? ''}; apt-get install python3-venv)` });
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `venv.tmp-${process.pid}-${Date.now()}`);
  try {
    const venv = spawnSync('python3', ['-m', 'venv', tmp], { encoding: 'utf8', timeout: 120_000 });
    if (venv.status !== 0) return (made = { skip: `python3 -m venv failed: ${venv.stderr.trim().split('\n').pop() ?? ''}` });
    const pip = spawnSync(join(tmp, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', '--retries', '0', '--timeout', '15', 'openai'], { encoding: 'utf8', timeout: PIP_TIMEOUT_MS });
    if (pip.status !== 0 || !imports(join(tmp, 'bin', 'python'))) return (made = { skip: `pip install openai failed here (no reachable package index has it): ${(pip.error?.message ?? pip.stderr.trim().split('\n').pop() ?? '').slice(0, 300)}` });
    if (!existsSync(python)) {
      try {
        renameSync(tmp, join(dir, 'venv'));
      } catch {
        // Another test file made it meanwhile: use theirs.
      }
    }
    return (made = imports(python) ? { python } : { skip: 'the openai-python venv could not be put in place' });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
