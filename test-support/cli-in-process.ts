import { main, reportError } from '../src/cli/main.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `iari ARGV` in this process as src/cli/entry.ts does (main, a thrown error mapped by
 * reportError), with `env` set for the run and stdout and stderr captured: what a test of a
 * command's exit code and output needs, without a child process and its TypeScript loader start.
 * Runs must not overlap: the environment and the streams are the process's.
 */
export async function runCli(argv: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<CliRun> {
  const out: CliRun = { code: -1, stdout: '', stderr: '' };
  const saved = new Map<string, string | undefined>();
  for (const [k, v] of Object.entries({ GITHUB_ACTIONS: '', ...env })) {
    saved.set(k, process.env[k]);
    process.env[k] = v;
  }
  const text = (chunk: unknown): string => (typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString());
  const writes = { stdout: process.stdout.write, stderr: process.stderr.write };
  process.stdout.write = ((chunk: unknown) => ((out.stdout += text(chunk)), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: unknown) => ((out.stderr += text(chunk)), true)) as typeof process.stderr.write;
  try {
    out.code = await main([...argv]);
  } catch (error) {
    out.code = reportError(error);
  } finally {
    process.stdout.write = writes.stdout;
    process.stderr.write = writes.stderr;
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
  return out;
}
