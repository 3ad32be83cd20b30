// Benchmark of the bundled mock server against a bare node:http server that writes the same bytes,
// measured side by side in one run (ratio), plus the cost of a durable ledger append per sync mode.
//
//   npx tsx scripts/bench-mock.ts [--duration 4] [--rounds 2] [--streams 256] [--concurrency 64] [--cpu-prof]
//                                 [--completion-tokens 32] [--out reports/bench/mock.json] [--beside FILE]
//                                 [--free-signatures]
//
// The reference figures use the default 32-token completions; --completion-tokens 256 is a
// variant with longer, more realistic completions (report it beside the default, not instead):
//   npx tsx scripts/bench-mock.ts --completion-tokens 256 --out /tmp/mock-256.json
//   npx tsx scripts/bench-mock.ts --beside /tmp/mock-256.json    (its summary goes into `beside`)
//
// Each server runs in its own child process; this process is the undici client (loopback only,
// bounded in time). Writes reports/bench/mock.json, with the CPU per request of each server and of
// the client, and `floor`: what the 0.5 target needs from lower bounds measured in the same run
// (cores needed at the target rate; the most a mock issuing Receipts on one thread can reach).
// --free-signatures adds a fourth server: the mock with Receipts whose Ed25519 signatures are a
// fixed string (free, and invalid), the upper bound of any design that moves signing off the
// HTTP thread (reported as upperBoundWithFreeSignatures, never as the ratio).
// With --cpu-prof the mock child is profiled (node --cpu-prof) and the hottest source files are
// printed (share of its busy time).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { floorAt, hottestFiles, ledgerAppendCost, receiptCost, REQUEST } from './bench-mock-costs.ts';
import { CHAT_COMPLETIONS_PATH, CHAT_COMPLETIONS_ROUTE } from '../src/protocols/chat-completions/chat-request.ts';

const SELF = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SELF), '..');
const TOKEN = 'sk-iari-bench-token-000000000001';
const DEFAULT_COMPLETION_TOKENS = 32;

interface Captured {
  stream: { status: number; headers: Record<string, string>; events: string[] };
  full: { status: number; headers: Record<string, string>; body: string };
}

// ---------------------------------------------------------------- children
async function serveMock(receipts: boolean, completionTokens: number, freeSignatures = false): Promise<void> {
  const { startMockServer } = await import('../mock-server/index.ts');
  if (freeSignatures) {
    // The bound of --free-signatures, in this child only: every Ed25519 signature is a fixed
    // string that costs nothing (the Receipts do not verify). No mock ships or runs like this.
    const { Ed25519Key } = await import('../src/receipts/index.ts');
    const fixed = 'A'.repeat(86);
    Ed25519Key.prototype.signToBase64url = () => fixed;
  }
  const server = await startMockServer({ seed: 1, limits: false, ttftMs: 0, itlMs: 0, jitterMs: 0, completionTokens, sendLogCapacity: 1024, receipts });
  announce(server.url, () => server.close());
}

async function serveBare(fixture: string): Promise<void> {
  const captured = JSON.parse(fs.readFileSync(fixture, 'utf8')) as Captured;
  const fullBody = Buffer.from(captured.full.body);
  const fullHeaders = { ...captured.full.headers, 'content-length': String(fullBody.length) };
  // The mock writes the events that are due together (all of them, with zero delay) as one chunk: so does this server.
  const events = Buffer.from(captured.stream.events.join(''));
  const server = createServer({ noDelay: true, keepAlive: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (!Buffer.concat(chunks).includes('"stream":true')) {
        res.writeHead(captured.full.status, fullHeaders);
        res.end(fullBody);
        return;
      }
      res.writeHead(captured.stream.status, captured.stream.headers);
      res.flushHeaders();
      res.write(events);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  announce(`http://127.0.0.1:${port}/v1`, () => new Promise<void>((resolve) => server.close(() => resolve())));
}

function announce(url: string, close: () => Promise<void>): void {
  fs.writeSync(1, `ready ${url}\n`);
  const stop = () => void close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  // Bounded: a child never outlives the benchmark by more than 10 minutes.
  setTimeout(stop, 600_000).unref();
  setInterval(() => {}, 60_000);
}

// ---------------------------------------------------------------- parent
async function startChild(args: string[], nodeFlags: string[] = []): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', SELF, ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, IARI_TOKEN: TOKEN }, cwd: ROOT });
  for await (const line of createInterface({ input: child.stdout as NodeJS.ReadableStream })) {
    if (line.startsWith('ready ')) return { child, url: line.slice(6) };
  }
  throw new Error(`child ${args.join(' ')} exited before it was ready`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

async function capture(url: string): Promise<Captured> {
  const post = async (stream: boolean) => {
    const response = await fetch(`${url}${CHAT_COMPLETIONS_ROUTE}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...REQUEST, stream }),
      signal: AbortSignal.timeout(10_000),
    });
    const headers: Record<string, string> = {};
    response.headers.forEach((v, k) => {
      if (k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection' && k !== 'keep-alive' && k !== 'date') headers[k] = v;
    });
    return { status: response.status, headers, text: await response.text() };
  };
  const s = await post(true);
  const f = await post(false);
  if (s.status !== 200 || f.status !== 200) throw new Error(`the mock answered ${s.status}/${f.status} to the benchmark request`);
  return {
    stream: { status: s.status, headers: s.headers, events: s.text.split(/(?<=\n\n)/) },
    full: { status: f.status, headers: f.headers, body: f.text },
  };
}

interface Measurement {
  requests: number;
  events: number;
  errors: number;
  seconds: number;
  perSecond: number;
  /** CPU time the server process spent per completed request (Linux /proc; null elsewhere). */
  serverCpuUsPerRequest: number | null;
  /** CPU time this (client) process spent per completed request. */
  clientCpuUsPerRequest: number | null;
}

/** user + system CPU seconds of a process, from /proc/PID/stat (clock ticks of 10 ms). */
function cpuSeconds(pid: number | undefined): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** Closed loop: `concurrency` workers, each sending one request after another until the time is up. */
async function measure(url: string, pid: number | undefined, stream: boolean, concurrency: number, seconds: number, expectEvents: number): Promise<Measurement> {
  const cpuBefore = cpuSeconds(pid);
  const clientBefore = process.cpuUsage();
  const origin = new URL(url).origin;
  const pool = new Pool(origin, { connections: concurrency, pipelining: 1, keepAliveTimeout: 10_000, headersTimeout: 10_000, bodyTimeout: 10_000 });
  const body = JSON.stringify({ ...REQUEST, stream });
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  let requests = 0;
  let events = 0;
  let errors = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  const worker = async () => {
    while (performance.now() < until) {
      try {
        const response = await pool.request({ origin, path: CHAT_COMPLETIONS_PATH, method: 'POST', headers, body });
        let count = 0;
        let carry = '';
        for await (const chunk of response.body) {
          const text = carry + (chunk as Buffer).toString('latin1');
          let at = text.indexOf('\n\n');
          let last = 0;
          while (at !== -1) {
            count++;
            last = at + 2;
            at = text.indexOf('\n\n', last);
          }
          carry = text.slice(last);
        }
        if (response.statusCode !== 200 || (stream && count !== expectEvents)) errors++;
        else {
          requests++;
          events += stream ? count : 0;
        }
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  const client = process.cpuUsage(clientBefore);
  await pool.close();
  const cpuAfter = cpuSeconds(pid);
  const serverCpuUsPerRequest = cpuBefore === null || cpuAfter === null || requests === 0 ? null : Math.round(((cpuAfter - cpuBefore) * 1e6) / requests);
  const clientCpuUsPerRequest = requests === 0 ? null : Math.round((client.user + client.system) / requests);
  return { requests, events, errors, seconds: elapsed, perSecond: (stream ? events : requests) / elapsed, serverCpuUsPerRequest, clientCpuUsPerRequest };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      serve: { type: 'string' },
      fixture: { type: 'string' },
      duration: { type: 'string', default: '4' },
      rounds: { type: 'string', default: '2' },
      streams: { type: 'string', default: '256' },
      concurrency: { type: 'string', default: '64' },
      'cpu-prof': { type: 'boolean', default: false },
      out: { type: 'string', default: 'reports/bench/mock.json' },
      'completion-tokens': { type: 'string', default: String(DEFAULT_COMPLETION_TOKENS) },
      beside: { type: 'string' },
      'free-signatures': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const completionTokens = Number(values['completion-tokens']);
  if (!Number.isInteger(completionTokens) || completionTokens < 1 || completionTokens > 4096) throw new Error('--completion-tokens must be an integer from 1 to 4096');
  if (values.serve === 'mock') return serveMock(true, completionTokens);
  if (values.serve === 'mock-no-receipts') return serveMock(false, completionTokens);
  if (values.serve === 'mock-free-signatures') return serveMock(true, completionTokens, true);
  if (values.serve === 'bare') return serveBare(values.fixture as string);

  const seconds = Number(values.duration);
  const rounds = Number(values.rounds);
  const streams = Number(values.streams);
  const concurrency = Number(values.concurrency);
  for (const [name, v, max] of [['duration', seconds, 60], ['rounds', rounds, 10], ['streams', streams, 1024], ['concurrency', concurrency, 1024]] as const) {
    if (!Number.isInteger(v) || v < 1 || v > max) throw new Error(`--${name} must be an integer from 1 to ${max}`);
  }
  const profileDir = path.join(ROOT, 'reports/bench/prof');
  if (values['cpu-prof']) fs.rmSync(profileDir, { recursive: true, force: true });
  const tokensArg = ['--completion-tokens', String(completionTokens)];
  const mock = await startChild(['--serve', 'mock', ...tokensArg], values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []);
  const captured = await capture(mock.url);
  const fixture = path.join(os.tmpdir(), `iari-bench-fixture-${process.pid}.json`);
  fs.writeFileSync(fixture, JSON.stringify(captured));
  const bare = await startChild(['--serve', 'bare', '--fixture', fixture]);
  const plain = await startChild(['--serve', 'mock-no-receipts', ...tokensArg]);
  type Name = 'bare' | 'mock' | 'mockNoReceipts' | 'mockFreeSignatures';
  const targets: [Name, { child: ChildProcess; url: string }][] = [['bare', bare], ['mock', mock], ['mockNoReceipts', plain]];
  if (values['free-signatures']) targets.push(['mockFreeSignatures', await startChild(['--serve', 'mock-free-signatures', ...tokensArg])]);
  const expectEvents = captured.stream.events.length;
  const zero = (): Sums => ({ stream: 0, full: 0, streamCpu: 0, fullCpu: 0, streamClientCpu: 0, fullClientCpu: 0 });
  const sums: Record<Name, Sums> = { bare: zero(), mock: zero(), mockNoReceipts: zero(), mockFreeSignatures: zero() };
  const runs: { round: number; server: string; mode: string; result: Measurement }[] = [];
  try {
    for (const [, target] of targets) {
      await measure(target.url, target.child.pid, true, streams, 1, expectEvents);
      await measure(target.url, target.child.pid, false, concurrency, 1, expectEvents);
    }
    for (let round = 1; round <= rounds; round++) {
      for (const mode of ['stream', 'full'] as const) {
        for (const [name, target] of targets) {
          const result = await measure(target.url, target.child.pid, mode === 'stream', mode === 'stream' ? streams : concurrency, seconds, expectEvents);
          sums[name][mode] += result.perSecond / rounds;
          sums[name][mode === 'stream' ? 'streamCpu' : 'fullCpu'] += (result.serverCpuUsPerRequest ?? NaN) / rounds;
          sums[name][mode === 'stream' ? 'streamClientCpu' : 'fullClientCpu'] += (result.clientCpuUsPerRequest ?? NaN) / rounds;
          runs.push({ round, server: name, mode, result });
          console.log(
            `round ${round} ${mode.padEnd(6)} ${name.padEnd(18)} ${result.perSecond.toFixed(0).padStart(8)} ${mode === 'stream' ? 'events/s' : 'req/s   '}  server CPU ${String(result.serverCpuUsPerRequest ?? '?').padStart(5)} us/request, client ${String(result.clientCpuUsPerRequest ?? '?').padStart(5)}  (${result.requests} requests, ${result.errors} errors)`,
          );
        }
      }
    }
  } finally {
    for (const [, target] of targets) await stopChild(target.child);
    fs.rmSync(fixture, { force: true });
  }
  const ledger = await ledgerAppendCost();
  const receipts = await receiptCost();
  const report = {
    object: 'bench.mock',
    node: process.version,
    cpus: os.cpus().length,
    loadavg: os.loadavg().map((x) => Math.round(x * 100) / 100),
    settings: { seconds, rounds, streams, concurrency, completionTokens, eventsPerStream: expectEvents, ledger: false },
    streaming: modeSummary(sums, 'stream', 'EventsPerSecond', 'Stream'),
    nonStreaming: modeSummary(sums, 'full', 'RequestsPerSecond', 'Request'),
    target: 0.5,
    ledgerAppend: ledger,
    receiptCostInProcess: receipts,
    floor: {
      streaming: floorAt(sums.bare.stream / expectEvents, sums.bare.streamClientCpu, sums.mockNoReceipts.streamCpu, receipts),
      nonStreaming: floorAt(sums.bare.full, sums.bare.fullClientCpu, sums.mockNoReceipts.fullCpu, receipts),
    },
    runs,
    ...(values['free-signatures']
      ? {
          // The most any design that takes the signing off the HTTP thread (a worker) could reach.
          upperBoundWithFreeSignatures: {
            streamingRatio: round3(sums.mockFreeSignatures.stream / sums.bare.stream),
            nonStreamingRatio: round3(sums.mockFreeSignatures.full / sums.bare.full),
            serverCpuUsPerStream: Math.round(sums.mockFreeSignatures.streamCpu),
            serverCpuUsPerRequest: Math.round(sums.mockFreeSignatures.fullCpu),
          },
        }
      : {}),
    ...(values['cpu-prof'] ? { hottestFiles: hottestFiles(profileDir) } : {}),
    ...(values.beside === undefined ? {} : { beside: [besideOf(path.resolve(ROOT, values.beside))] }),
  };
  const out = path.resolve(ROOT, values.out as string);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`streaming:     mock ${report.streaming.mockEventsPerSecond} events/s, bare ${report.streaming.bareEventsPerSecond} events/s, ratio ${report.streaming.ratio} (without receipts ${report.streaming.ratioNoReceipts})`);
  console.log(`non-streaming: mock ${report.nonStreaming.mockRequestsPerSecond} req/s, bare ${report.nonStreaming.bareRequestsPerSecond} req/s, ratio ${report.nonStreaming.ratio} (without receipts ${report.nonStreaming.ratioNoReceipts})`);
  console.log(`server CPU per stream (us): ${JSON.stringify(report.streaming.serverCpuUsPerStream)}; per request: ${JSON.stringify(report.nonStreaming.serverCpuUsPerRequest)}`);
  console.log(`floor (target 0.5): streaming ${JSON.stringify(report.floor.streaming)}`);
  console.log(`floor (target 0.5): non-streaming ${JSON.stringify(report.floor.nonStreaming)}`);
  if (report.upperBoundWithFreeSignatures !== undefined) console.log(`with free signatures (upper bound of a signing worker): ${JSON.stringify(report.upperBoundWithFreeSignatures)}`);
  console.log(`ledger append: ${JSON.stringify(ledger)}`);
  console.log(`receipts of one completion (in-process): ${receipts.gateAndOutcomeUs} us, of which 2 Ed25519 signatures at ${receipts.ed25519SignUs} us each`);
  if (report.hottestFiles !== undefined) for (const h of report.hottestFiles) console.log(`  ${String(h.selfPercent).padStart(5)}%  ${h.file}`);
  console.log(`wrote ${path.relative(ROOT, out)}`);
}

/** The summary of another report of this script (e.g. the --completion-tokens 256 variant), kept beside this one. */
function besideOf(file: string): Record<string, unknown> {
  const other = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  if (other['object'] !== 'bench.mock') throw new Error(`--beside ${file} is not a report of this script`);
  const { settings, streaming, nonStreaming, floor, receiptCostInProcess, loadavg, upperBoundWithFreeSignatures } = other;
  return { settings, streaming, nonStreaming, floor, receiptCostInProcess, loadavg, ...(upperBoundWithFreeSignatures === undefined ? {} : { upperBoundWithFreeSignatures }) };
}

type Sums = { stream: number; full: number; streamCpu: number; fullCpu: number; streamClientCpu: number; fullClientCpu: number };

/** One mode's figures (streamed events or whole requests): rates, ratios against bare, CPU per unit. */
function modeSummary(sums: Record<'bare' | 'mock' | 'mockNoReceipts', Sums>, mode: 'stream' | 'full', rate: string, unit: string): Record<string, unknown> {
  const cpu = (key: 'streamCpu' | 'fullCpu' | 'streamClientCpu' | 'fullClientCpu') => ({ bare: Math.round(sums.bare[key]), mock: Math.round(sums.mock[key]), mockNoReceipts: Math.round(sums.mockNoReceipts[key]) });
  return {
    [`bare${rate}`]: Math.round(sums.bare[mode]),
    [`mock${rate}`]: Math.round(sums.mock[mode]),
    ratio: round3(sums.mock[mode] / sums.bare[mode]),
    [`mockNoReceipts${rate}`]: Math.round(sums.mockNoReceipts[mode]),
    ratioNoReceipts: round3(sums.mockNoReceipts[mode] / sums.bare[mode]),
    [`serverCpuUsPer${unit}`]: cpu(mode === 'stream' ? 'streamCpu' : 'fullCpu'),
    [`clientCpuUsPer${unit}`]: cpu(mode === 'stream' ? 'streamClientCpu' : 'fullClientCpu'),
  };
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

await main();
