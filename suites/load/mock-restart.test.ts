/**
 * A fault during a long load run (issue 14, part 5): the mock is SIGKILLed mid-run and a new
 * process starts on the same port with the same ledger. iari load records the errors by class and
 * keeps going, its report shows the gap, and the restarted mock's chain verifies with every
 * acknowledged Receipt on disk: the ledger writes each Receipt with O_DSYNC before the response
 * that it records is finished (mock-server/receipt-ledger.ts), so a response the client read to its
 * end has its gate and its ok outcome on disk, whatever happens to the process afterwards.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyChain, type Receipt } from '../../src/receipts/index.ts';
import { readLedger } from '../../mock-server/receipt-ledger.ts';
import { runLoadConfig } from '../../src/load/run-load.ts';
import { outageSeconds, renderLoadReport } from '../../src/report/load-html.ts';
import { builtinPrompts } from '../../src/load/workloads/prompts.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'iari-restart-'));
const TOKEN = 'iari_sk_restart_test_token_0001';
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** The mock with a ledger, in its own process (test-support/receipt-ledger-child.ts), on a given port. */
function startChild(ledger: string, port: number): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', './scripts/register-ts.mjs', 'test-support/receipt-ledger-child.ts', ledger, '41', String(port)], {
    cwd: root,
    env: { ...process.env, IARI_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`mock child did not start: ${out}`)), 60_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /ready (\S+)/.exec(out);
      if (m?.[1] !== undefined) {
        clearTimeout(timer);
        resolve({ child, url: m[1] });
      }
    });
    child.stderr?.resume();
    child.once('exit', (code) => reject(new Error(`mock child exited (${code}) before it was ready: ${out}`)));
  });
}

describe('a mock restart during a load run', () => {
  it('iari load records the outage by error class and goes on, its report shows the gap, and the restarted chain verifies with every acknowledged Receipt on disk', async () => {
    const ledger = path.join(dir, 'receipts.jsonl');
    const port = await freePort();
    let mock = await startChild(ledger, port);
    const url = mock.url;
    // 2 s after the run starts: SIGKILL; 2 s later a new process on the same port and ledger; the run
    // ends (as an interrupt) 2 s after that process is ready (40 requests), however long it took to start.
    let restartedAt = 0;
    let killedAt = 0;
    let killedAtS = 0;
    const stop = new AbortController();
    const chaos = (startNs: bigint): void => {
      const startMs = Number(startNs / 1_000_000n);
      const msFromNow = (t: number): number => Math.max(0, t - Number(process.hrtime.bigint() / 1_000_000n));
      setTimeout(() => {
        killedAt = Date.now();
        killedAtS = Number(process.hrtime.bigint() - startNs) / 1e9;
        mock.child.kill('SIGKILL');
        setTimeout(() => {
          void startChild(ledger, port).then((m) => {
            mock = m;
            restartedAt = Date.now();
            setTimeout(() => stop.abort(), 2000);
          });
        }, 2000);
      }, msFromNow(startMs + 2000));
    };
    const { result, records } = await runLoadConfig({
      runId: 'restart',
      baseUrl: url,
      token: TOKEN,
      model: 'iari-mini',
      target: 'external',
      mode: { kind: 'open', rate: 20, arrival: 'constant' },
      durationS: 120,
      requests: null,
      warmupS: 0,
      maxTokens: 8,
      stream: true,
      prompts: builtinPrompts.map((p) => [...p]),
      promptsSource: 'builtin',
      seed: 1,
      timeoutMs: 5_000,
      requestTimeoutMs: 10_000,
      slos: [],
      sloExprs: [],
      shard: null,
      prime: false,
      // No check worker to start (fidelity.test.ts: both check the same).
      checkIn: 'in-process',
      onStart: chaos,
      signal: stop.signal,
    });
    expect(killedAt).toBeGreaterThan(0);
    expect(restartedAt).toBeGreaterThan(killedAt);
    // Errors by class: refused connections while it was down, resets of what was in flight.
    const byClass = result.errors.byClass;
    expect(byClass.connect + byClass.reset, JSON.stringify(byClass)).toBeGreaterThan(0);
    expect(result.counts.failed).toBe(Object.values(byClass).reduce((a, b) => a + b, 0));
    // It went on: requests succeeded before the kill and after the restart.
    const ok = records.filter((r) => r.error === null && r.phase === 'measure');
    const okTimes = ok.map((r) => r.sentUs / 1e6);
    // Ended before the kill (sent + e2e is never earlier than the real end), whatever the machine's load.
    expect(ok.some((r) => (r.sentUs + (r.e2eUs ?? Infinity)) / 1e6 < killedAtS), `killed at ${killedAtS.toFixed(2)} s; ok sent at ${okTimes.slice(0, 5).join(', ')}`).toBe(true);
    expect(okTimes.some((t) => t > (restartedAt - killedAt) / 1000 + 2)).toBe(true);
    // The report shows the gap: at least one whole second without a success, said in the over-time section.
    const gaps = outageSeconds(result.timeslices);
    expect(gaps.length, JSON.stringify(result.timeslices.map((s) => [s.tS, s.ok, s.failed]))).toBeGreaterThan(0);
    expect(renderLoadReport(result)).toMatch(/No request succeeded during seconds? \d/);

    // The chain of the restarted mock verifies, and holds an ok outcome for every response read to its end.
    const keys = (await (await fetch(`${url}/receipts/keys`)).json()) as { keys: { kid: string }[] };
    mock.child.kill('SIGTERM');
    await new Promise((r) => mock.child.once('exit', r));
    const receipts = readLedger(ledger).entries.filter((e) => e.account === 'acct_dev').map((e) => e.receipt as unknown as Receipt);
    const verified = verifyChain(receipts, { trustedIssuers: keys.keys.map((k) => k.kid) });
    expect(verified.errors).toEqual([]);
    expect(verified.valid).toBe(true);
    const okOutcomes = receipts.filter((r) => r.outcome?.status === 'ok').length;
    expect(okOutcomes).toBeGreaterThanOrEqual(result.counts.ok);
    // The gates the kill left open were closed as interrupted by the restarted process.
    const gates = receipts.filter((r) => r.outcome === undefined && r.decision.result === 'allowed').length;
    expect(receipts.filter((r) => r.gate !== undefined).length).toBe(gates);
  }, 180_000);
});
