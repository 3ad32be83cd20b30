// `iari test --pace`: wall time of a full run against a third-party server that reports no limits
// (@dwmkerr/mock-llm on 127.0.0.1, as suites/third-party runs it), at the default pace (10/s, what
// a server without /v1/me gets) beside --pace 1000/s (the floor: nothing waits) and, with --slow,
// --pace 1/s (about the old 60-requests-a-minute fallback). Prints a table and writes
// reports/bench/pace.json with the load average, since wall times on a shared machine vary.
//
//   npx tsx scripts/bench-pace.ts [--runs 1] [--slow]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startMockLlm } from '../suites/third-party/mock-llm-server.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({ options: { runs: { type: 'string' }, slow: { type: 'boolean' } } });
const runs = Math.max(1, Number(values.runs ?? 1));
const variants: { name: string; args: string[] }[] = [
  { name: 'default (10/s)', args: [] },
  { name: '--pace 1000/s (floor)', args: ['--pace', '1000/s'] },
  ...(values.slow === true ? [{ name: '--pace 1/s', args: ['--pace', '1/s'] }] : []),
];

function iariTest(url: string, extra: string[], reportDir: string): Promise<{ ms: number; code: number | null }> {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/entry.ts', 'test', '--base-url', url, '--json', '--report', reportDir, ...extra], {
      cwd: root,
      stdio: 'ignore',
      env: { ...process.env, IARI_TOKEN: 'iari-bench-pace-token-0123456789', GITHUB_ACTIONS: '', GITHUB_STEP_SUMMARY: '' },
    });
    const kill = setTimeout(() => child.kill('SIGKILL'), 15 * 60_000);
    child.on('exit', (code) => {
      clearTimeout(kill);
      resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, code });
    });
  });
}

const tmp = mkdtempSync(join(tmpdir(), 'iari-bench-pace-'));
const server = await startMockLlm();
const figures: { name: string; runs: number; medianMs: number; minMs: number; maxMs: number; exitCodes: (number | null)[] }[] = [];
try {
  for (const v of variants) {
    const samples: number[] = [];
    const codes: (number | null)[] = [];
    for (let i = 0; i < runs; i++) {
      const r = await iariTest(server.url, v.args, join(tmp, `${figures.length}-${i}`));
      samples.push(r.ms);
      codes.push(r.code);
    }
    samples.sort((a, b) => a - b);
    figures.push({ name: v.name, runs, medianMs: Math.round(samples[Math.floor(samples.length / 2)] as number), minMs: Math.round(samples[0] as number), maxMs: Math.round(samples.at(-1) as number), exitCodes: codes });
  }
} finally {
  await server.close();
  rmSync(tmp, { recursive: true, force: true });
}
const load = loadavg().map((l) => Number(l.toFixed(2)));
for (const f of figures) console.log(`${f.name.padEnd(24)} median ${(f.medianMs / 1000).toFixed(1)} s (min ${(f.minMs / 1000).toFixed(1)}, max ${(f.maxMs / 1000).toFixed(1)}; exit ${f.exitCodes.join(',')})`);
console.log(`load average ${load.join(' ')}`);
mkdirSync(join(root, 'reports/bench'), { recursive: true });
writeFileSync(join(root, 'reports/bench/pace.json'), `${JSON.stringify({ target: '@dwmkerr/mock-llm (no /v1/me)', figures, loadavg: load, at: new Date().toISOString() }, null, 2)}\n`);
