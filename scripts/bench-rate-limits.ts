/**
 * How long a full `iari test` takes against a server that rate-limits it, and what it reports
 * (issue 10, part 4). For each case the bundled mock is started on loopback with one server-wide
 * fault and the real CLI runs against it as a user would (`iari test --base-url ...`, so it
 * throttles itself to 90% of the requests_per_minute /v1/me reports and waits out every 429):
 *
 *   npx tsx scripts/bench-rate-limits.ts [--cases faithful,rate-limit-below-reported,...] [--max-rate-limit-wait 10m]
 *
 * A server whose /v1/me reports its real limit is never hit that way (iari paces itself), so each
 * limiting fault also runs unthrottled in-process (the whole catalog, as `iari test` runs it on the
 * bundled mock), where the 429s are met and waited out in real time (`--in-process`).
 *
 * Prints one line per case (wall time, exit code, 429s met and waited, the IDs that are not pass)
 * and writes reports/bench/rate-limits.json. Wall time is mostly waiting for the server's window,
 * so it hardly depends on the machine's load.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { startMockServer } from '../mock-server/index.ts';
import { catalog } from '../src/checks/runner/catalog.ts';
import { createCheckContext } from '../src/checks/context/check-context.ts';
import { runChecksInProcess } from '../src/checks/runner/run-catalog.ts';

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: 'faithful,rate-limit-below-reported,rate-limit-no-retry-after,limit-never-429' },
    'max-rate-limit-wait': { type: 'string', default: '10m' },
    'in-process': { type: 'string', default: 'rate-limit-below-reported,rate-limit-no-retry-after' },
    out: { type: 'string', default: 'reports/bench/rate-limits.json' },
  },
});
const root = fileURLToPath(new URL('../', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'iari-bench-rate-limits-'));

interface CaseResult {
  fault: string;
  wallSeconds: number;
  exitCode: number;
  /** Progress lines: 429s iari waited out, and those it stopped waiting for. */
  waited: number;
  gaveUp: number;
  summary: Record<string, number>;
  notPass: string[];
  loadAverage: number[];
}

function iari(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/entry.ts', 'test', ...args], { cwd: root, env: { ...process.env, ...env, GITHUB_ACTIONS: '' }, timeout: 60 * 60_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
}

const results: CaseResult[] = [];
try {
  for (const fault of values.cases.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const mock = await startMockServer({ ...(fault === 'faithful' ? {} : { faults: [fault] }) });
    try {
      const out = join(tmp, fault);
      const started = performance.now();
      const r = await iari(['--base-url', mock.url, '--max-rate-limit-wait', values['max-rate-limit-wait'], '--report', out], { IARI_TOKEN: mock.tokens.default });
      const wallSeconds = Math.round((performance.now() - started) / 100) / 10;
      const report = JSON.parse(readFileSync(join(out, 'conformance.json'), 'utf8')) as { summary: Record<string, number>; results: { id: string; verdict: string }[] };
      const result: CaseResult = {
        fault,
        wallSeconds,
        exitCode: r.code,
        waited: (r.stderr.match(/^iari: 429 on .*: waiting /gm) ?? []).length,
        gaveUp: (r.stderr.match(/^iari: 429 on .*: not waiting /gm) ?? []).length,
        summary: report.summary,
        notPass: report.results.filter((x) => x.verdict === 'fail' || x.verdict === 'non-strict').map((x) => `${x.id} ${x.verdict}`),
        loadAverage: loadavg().map((x) => Math.round(x * 100) / 100),
      };
      results.push(result);
      process.stdout.write(`${fault.padEnd(28)} ${String(wallSeconds).padStart(7)} s  exit ${result.exitCode}  429s waited ${result.waited}, given up ${result.gaveUp}  not pass: ${result.notPass.join(', ') || '(none)'}  load ${result.loadAverage.join(' ')}\n`);
    } finally {
      await mock.close();
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

interface InProcessResult {
  fault: string;
  wallSeconds: number;
  waitedSeconds: number;
  events: number;
  bases: string[];
  notPass: string[];
  loadAverage: number[];
}

const inProcess: InProcessResult[] = [];
for (const fault of values['in-process'].split(',').map((s) => s.trim()).filter((s) => s !== '')) {
  const mock = await startMockServer({ faults: [fault] });
  try {
    const second = mock.tokens.byAccount['acct_team'];
    const ctx = createCheckContext({ root: mock.origin, token: mock.tokens.default, seed: 1, target: 'bundled-mock', includeLimits: false, ...(second === undefined ? {} : { secondToken: second }) }, { progress: () => {} });
    const started = performance.now();
    const run = await runChecksInProcess(ctx, catalog);
    const events = ctx.http.rateLimits?.all ?? [];
    const result: InProcessResult = {
      fault,
      wallSeconds: Math.round((performance.now() - started) / 100) / 10,
      waitedSeconds: Math.round((ctx.http.rateLimits?.waitedMs ?? 0) / 100) / 10,
      events: events.length,
      bases: [...new Set(events.map((e) => e.wait?.basis ?? e.action))],
      notPass: [...run.outcomes.values()].filter((o) => o.verdict === 'fail' || o.verdict === 'non-strict').map((o) => `${o.id} ${o.verdict}`),
      loadAverage: loadavg().map((x) => Math.round(x * 100) / 100),
    };
    inProcess.push(result);
    process.stdout.write(`in-process ${fault.padEnd(28)} ${String(result.wallSeconds).padStart(7)} s  waited ${result.waitedSeconds} s for ${result.events} 429s (${result.bases.join(', ')})  not pass: ${result.notPass.join(', ') || '(none)'}  load ${result.loadAverage.join(' ')}\n`);
  } finally {
    await mock.close();
  }
}
mkdirSync(join(root, 'reports', 'bench'), { recursive: true });
writeFileSync(join(root, values.out), `${JSON.stringify({ command: `npx tsx scripts/bench-rate-limits.ts --cases ${values.cases} --max-rate-limit-wait ${values['max-rate-limit-wait']} --in-process ${values['in-process']}`, results, inProcess }, null, 2)}\n`);
process.stdout.write(`wrote ${values.out}\n`);
