import { join } from 'node:path';
import { durationOption } from '../duration.ts';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { ExitCode } from '../exit-codes.ts';
import { timeSourceFromEnv } from '../load/coordination/clock.ts';
import { mergeCoordinated } from '../load/coordination/coordinated-merge.ts';
import { startCoordinator, type Coordinator } from '../load/coordination/coordinator.ts';
import { shardClient, type ShardClient } from '../load/coordination/shard-client.ts';
import type { LoadPlan } from '../load/plan/load-options.ts';
import { runLengthS } from '../load/run-load.ts';
import type { ShardInfo } from '../load/results/load-result.ts';
import { summaryTable } from '../load/results/summary.ts';
import { createRedactor } from '../report/redact.ts';
import { readToken } from '../client/token.ts';
import { createRunDir } from '../report/run-dir.ts';
import { writeLoadFiles } from '../report/load-files.ts';
import { loadRunPassed } from '../load/results/run-verdict.ts';
import type { LoadFlagValues } from './load-flags.ts';

// `iari load --coordinate ADDR` and `--coordinator URL` (docs/load.md, "One run on many machines").

export interface CoordinationFlags {
  /** Serve the coordinator on host:port. */
  listen: { host: string; port: number } | null;
  /** Join this coordinator. */
  url: string | null;
  /** --shards N: coordinate without running a shard. */
  shards: number | null;
  runToken: string;
  registerTimeoutMs: number;
}

const who = 'iari load';
const usage = (m: string): HarnessError => new HarnessError(HarnessErrorCode.USAGE, `${who}: ${m}`);

/** The coordination flags, checked; null when none is given. */
export function coordinationFromFlags(v: LoadFlagValues, shard: ShardInfo | null, serverToken: string | null, env: NodeJS.ProcessEnv = process.env): CoordinationFlags | null {
  if (v.coordinate === undefined && v.coordinator === undefined) {
    for (const f of ['shards', 'run-token-env', 'register-timeout'] as const) if (v[f] !== undefined) throw usage(`--${f} goes with --coordinate or --coordinator`);
    return null;
  }
  if (v.coordinate !== undefined && v.coordinator !== undefined) throw usage('give --coordinate (serve the coordinator) or --coordinator URL (join one), not both');
  let listen: CoordinationFlags['listen'] = null;
  if (v.coordinate !== undefined) {
    const m = /^(?:(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(v.coordinate.trim());
    const port = Number(m?.[2]);
    if (m === null || port > 65535) throw usage(`--coordinate must be [HOST:]PORT, e.g. 0.0.0.0:7070, got "${v.coordinate}"`);
    listen = { host: (m[1] ?? '0.0.0.0').replace(/^\[|\]$/g, ''), port };
  }
  let url: string | null = null;
  if (v.coordinator !== undefined) {
    try {
      const u = new URL(v.coordinator);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
      url = u.origin;
    } catch {
      throw usage(`--coordinator must be an http(s) URL, e.g. http://iari-load-0.iari-load:7070, got "${v.coordinator}"`);
    }
    if (shard === null) throw usage('--coordinator needs --shard i/n (this process\'s share)');
  }
  let shards: number | null = null;
  if (v.shards !== undefined) {
    if (listen === null) throw usage('--shards N goes with --coordinate (a coordinator that runs no shard)');
    if (shard !== null) throw usage('give --shard 0/n (coordinate and run shard 0) or --shards N (coordinate only), not both');
    shards = Number(v.shards);
    if (!Number.isInteger(shards) || shards < 1 || shards > 1000) throw usage(`--shards must be an integer 1..1000, got "${v.shards}"`);
  }
  if (listen !== null && shards === null && shard?.index !== 0) throw usage('--coordinate runs shard 0 (--shard 0/n) or no shard (--shards N)');
  const runToken = readToken(who, { tokenEnv: v['run-token-env'] ?? 'IARI_RUN_TOKEN' }, env);
  if (serverToken !== null && runToken === serverToken) throw usage("the run token must not be the server's token (it goes to the coordinator, another origin)");
  const registerTimeoutMs = durationOption(who, 'register-timeout', v['register-timeout'], 0.5, 3600) ?? 60_000;
  return { listen, url, shards, runToken, registerTimeoutMs };
}

/** What runLoadCommand needs of a coordinated shard. */
export interface ShardHooks {
  client: ShardClient;
  coordinator: Coordinator | null;
}

/** Starts the coordinator (--coordinate) and/or the shard's client (a shard of a coordinated run). */
export async function openCoordination(f: CoordinationFlags, plan: LoadPlan, log: (line: string) => void): Promise<{ coordinator: Coordinator | null; client: ShardClient | null }> {
  const { time, injectedMs } = timeSourceFromEnv();
  const count = f.shards ?? plan.shard?.count ?? 1;
  const coordinator = f.listen === null ? null : await startCoordinator({ count, token: f.runToken, host: f.listen.host, port: f.listen.port, registerTimeoutMs: f.registerTimeoutMs, time, onLive: (line) => log(`coordinator: ${line}`) });
  if (coordinator !== null) log(`iari load: coordinating ${count} shard${count === 1 ? '' : 's'} at ${coordinator.url} (register within ${(f.registerTimeoutMs / 1000).toFixed(1)} s)\n`);
  const url = f.url ?? coordinator?.url ?? null;
  const client = url === null || plan.shard === null ? null : shardClient({ url, token: f.runToken, shard: plan.shard, registerTimeoutMs: f.registerTimeoutMs, time, injectedMs, slos: plan.slos, endsWithinMs: runLengthS(plan) * 1000 + 1000 });
  return { coordinator, client };
}

/** The coordinator's end: waits for every shard, writes the merged report, prints it, and gives the exit code. */
export async function finishCoordinator(coordinator: Coordinator, plan: LoadPlan, runId: string, reportDir: string, out: { stdout: (s: string) => void }): Promise<number> {
  try {
    const outcome = await coordinator.done;
    if (outcome.kind === 'unregistered') throw new HarnessError(HarnessErrorCode.COORDINATION_FAILED, `${who}: ${outcome.detail}`);
    const merged = mergeCoordinated(outcome, `${runId}-merged`);
    const dir = createRunDir({ report: reportDir, id: `${runId}-merged` });
    writeLoadFiles(merged, [], dir, createRedactor([]));
    if (plan.json) out.stdout(JSON.stringify(merged, null, 2) + '\n');
    else out.stdout(`\nmerged (coordinator):\n${summaryTable(merged)}\nmerged report: ${join(dir.dir, 'report.html')}\n`);
    return loadRunPassed(merged) ? ExitCode.ok : ExitCode.thresholdBreached;
  } finally {
    await coordinator.close();
  }
}

