import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { parseFlags, parseIntegerFlag } from './args.ts';
import { ExitCode } from '../exit-codes.ts';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { createRunDir, shownPath } from '../report/run-dir.ts';
import { startMockServer, type MockServer } from '../../mock-server/index.ts';
import { run as runTest } from './test-command.ts';
import { runLoadCommand } from './load-command.ts';
import { scenarioPlan } from '../library/run-scenario.ts';
import type { LoadScenario } from '../load/plan/scenario.ts';
import type { LoadPlan } from '../load/plan/load-options.ts';
import { run as runReceipts } from './receipts-command.ts';

const HELP = `Usage: iari start [--seed N] [--report DIR]

The main job on the bundled mock server (what \`npm start\` runs):
  1. starts the bundled mock on 127.0.0.1 (in-process),
  2. runs the conformance suites against it (iari test),
  3. runs a short streaming load test against it (iari load, a few seconds),
  4. fetches the mock's Receipt chain over the receipts extension and verifies it
     (iari receipts verify, trusting the key the mock was started with),
  5. prints where the reports are, and the next step: the same against your own server.

Everything goes under one run directory, one run id for the three steps:
  reports/<run-id>/conformance/  report.html, conformance.json, results.ndjson, junit.xml
  reports/<run-id>/load/         report.html, load.json, requests.ndjson, junit.xml
  reports/<run-id>/receipts/     chain.jsonl (the chain that was verified)

Options:
  --seed N       seed for the mock and the generated requests (default 1)
  --report DIR   write everything under DIR (default reports/<run-id>/)

Exit codes: 0 all passed, 1 a conformance check failed or the chain is invalid,
2 usage error, 3 a load threshold was breached, 130 interrupted.
`;

const options = {
  seed: { type: 'string' },
  report: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** What a new user does after the demo: the same two commands against their own server. */
export const NEXT_STEP = `Next: point iari at your own server (the token is read from the environment, never a flag):
  IARI_TOKEN=... npx iari test --base-url https://your-server.example/v1
  IARI_TOKEN=... npx iari load --base-url https://your-server.example/v1 --duration 30s --slo 'ttft.p95<1s'
`;

function heading(text: string): void {
  process.stdout.write(`\n== ${text}\n`);
}

async function fetchJson(url: string, token?: string): Promise<unknown> {
  const res = await request(url, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`GET ${new URL(url).pathname} answered ${res.statusCode}`);
  return JSON.parse(text) as unknown;
}

interface ChainSnapshot {
  file: string;
  head: string | null;
  grantId: string;
  issuer: string;
  count: number;
}

/** Writes the caller's chain, as served by GET /v1/receipts, to a JSONL file. */
async function saveChain(mock: MockServer, dir: string): Promise<ChainSnapshot> {
  const keys = (await fetchJson(`${mock.url}/receipts/keys`)) as { keys: { kid: string }[] };
  const list = (await fetchJson(`${mock.url}/receipts`, mock.tokens.default)) as {
    head: string | null;
    mandate: { grant_id: string };
    data: unknown[];
  };
  // Trust comes from the key the in-process mock holds, not from what the route says.
  const held = mock.receipts?.keys().keys[0]?.kid;
  if (held === undefined || keys.keys[0]?.kid !== held) throw new Error('the receipts keys route does not publish the key the mock signs with');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'chain.jsonl');
  writeFileSync(file, list.data.map((r) => JSON.stringify(r)).join('\n') + (list.data.length > 0 ? '\n' : ''));
  return { file, head: list.head, grantId: list.mandate.grant_id, issuer: held, count: list.data.length };
}

function worst(codes: number[]): number {
  for (const code of [ExitCode.interrupted, ExitCode.usage, ExitCode.conformanceFailed, ExitCode.thresholdBreached]) {
    if (codes.includes(code)) return code;
  }
  return codes.find((c) => c !== ExitCode.ok) ?? ExitCode.ok;
}

/** The load part of `iari start`: a scenario, run through the one entry as `iari load` runs its own. */
export const START_LOAD_SCENARIO: LoadScenario = {
  executor: { kind: 'closed', concurrency: 16 },
  run: { duration: '3s', warmup: '1s' },
  slos: ['errors.rate<0.01', 'ttft.p99<2s'],
};

function startLoad(seed: number, report: string): [LoadPlan, LoadScenario] {
  const { plan, scenario } = scenarioPlan({ ...START_LOAD_SCENARIO, run: { ...START_LOAD_SCENARIO.run, seed } });
  return [{ ...plan, report, quiet: true }, scenario];
}

export async function run(argv: string[]): Promise<number> {
  const { values } = parseFlags('start', argv, options);
  if (values.help === true) {
    process.stdout.write(HELP);
    return ExitCode.ok;
  }
  const seed = parseIntegerFlag('start', 'seed', values.seed, 0, 2 ** 31 - 1) ?? 1;
  const runDir = createRunDir({ report: values.report });
  const rel = (p: string): string => shownPath(values.report, p);
  const t0 = performance.now();

  const mock = await startMockServer({ seed });
  const codes: number[] = [];
  let chain: ChainSnapshot | undefined;
  try {
    heading(`conformance: iari test against the bundled mock (${mock.url})`);
    codes.push(
      await runTest(['--seed', String(seed), '--report', join(runDir.dir, 'conformance')], { mock, runId: runDir.id }),
    );

    heading('load: iari load, 3 s closed loop at 16 streams against a fresh bundled mock');
    codes.push(await runLoadCommand(...startLoad(seed, join(runDir.dir, 'load')), undefined, { runId: runDir.id }));

    heading('receipts: the mock\'s Receipt chain for the default account, verified');
    try {
      chain = await saveChain(mock, join(runDir.dir, 'receipts'));
      process.stdout.write(`${chain.count} receipts from GET /v1/receipts -> ${rel(chain.file)}\n`);
      const args = ['verify', chain.file, '--trust', chain.issuer, '--grant-id', chain.grantId];
      if (chain.head !== null) args.push('--head', chain.head);
      codes.push(await runReceipts(args));
    } catch (error) {
      process.stderr.write(`iari start: could not fetch the receipt chain: ${(error as Error).message}\n`);
      codes.push(ExitCode.conformanceFailed);
    }
  } finally {
    await mock.close();
  }

  const code = worst(codes);
  heading(`done in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${code === ExitCode.ok ? 'all passed' : `exit ${code}`}`);
  process.stdout.write(
    [
      `conformance report: ${rel(join(runDir.dir, 'conformance', 'report.html'))}`,
      `load report:        ${rel(join(runDir.dir, 'load', 'report.html'))}`,
      ...(chain === undefined ? [] : [`receipt chain:      ${rel(chain.file)}`]),
      '',
      NEXT_STEP,
    ].join('\n'),
  );
  if (codes.length === 0) throw new HarnessError(HarnessErrorCode.INTERNAL, 'iari start ran no step');
  return code;
}
