import { spawn } from 'node:child_process';

/** What a CLI run printed and how it exited. */
export interface ChildRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `iari ARGS` from source in a child process with `env` added to this one's; killed (and rejected) past `timeoutMs`. */
export function runIariChild(args: string[], env: Record<string, string>, timeoutMs = 90_000): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/entry.ts', ...args], {
      cwd: process.cwd(),
      env: { ...process.env, ...env, FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`iari ${args[0]} did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
