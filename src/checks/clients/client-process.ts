import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Socket } from 'node:net';
import type { CheckContext } from '../context/check-types.ts';
import type { Capability } from '../registry/capabilities.ts';
import { probeCapability } from '../requests/capability-probes.ts';
import { unknownModelId } from '../requests/common-requests.ts';
import { startClientRelay } from './client-relay.ts';
import { ThrownInClient, type ClientTransport } from './client-transport.ts';
import { rateLimitGiveUp } from '../rate-limits/rate-limit-retry.ts';
import type { ChildAsk, ChildDone, ChildToMain, MainToChild, OpFacts } from './client-process-messages.ts';
import type { OpResult } from './client-op-env.ts';
import { clientCaps } from './client-op-env.ts';
import { pausedDeadline } from '../kernel/paused-deadline.ts';

// The JS client libraries (openai-node 7 and 6, the AI SDK 7 and 6, LangChain, the Agents SDK) are
// imported and run in one child process (client-child.ts), never in this one (issue 41): their
// import, ~0.9 s of CPU and ~150 MiB, runs on another core while this process runs other checks,
// and their memory stays out of it. The child is started when a run starts (CheckDef.prepare) and
// kept for the process (a process running many runs, the fault matrix, pays its start once); it is
// unref'd, ended when this process exits, and a dead one is replaced at the next operation.
//
// Verdicts, evidence and the fetch policy stay here. For each operation this process starts a
// loopback relay (client-relay.ts) through the operation's ClientTransport: origin refusal,
// throttle, fault header, time and size bounds, rate-limit retry, curl and x-request-id evidence.
// The child gets the relay's URL and a stand-in key the relay swaps for the run's token: the
// token never enters the child's arguments, environment or messages. What the operation returns
// (OpResult) and what the library printed come back; capability probes it asks for are answered
// here, from the run's own probes.

const FROM_SOURCES = import.meta.url.endsWith('.ts');
const CHILD_PATH = fileURLToPath(new URL(`./client-child${FROM_SOURCES ? '.ts' : '.js'}`, import.meta.url));
/** Run from the sources (the tests, `npx tsx`): the child needs tsx's loader too (they use TypeScript beyond what Node strips). */
/**
 * The child's young generation bounded at 16 MiB a semi-space: importing the libraries keeps much
 * alive, which grows V8's default up to 64 MiB a semi-space on a large machine for the rest of the
 * process (src/young-generation.ts says the same of iari test's own process).
 */
const CHILD_EXEC_ARGV = [...(FROM_SOURCES ? ['--import', 'tsx'] : []), '--max-semi-space-size=16'];
const START_TIMEOUT_MS = 30_000;
/** What the child inherits of the user's environment: what finds node and its locale. No token, no proxy, no OPENAI_* or LangSmith variable. */
const PASSED_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'SYSTEMROOT', 'TMPDIR'];

/** What an operation run in the child came to; `lost`: the child never answered it (not started, ended, or past the bound). */
export type ChildRun = { outcome: { value: OpResult | 'not-installed' } | { error: unknown }; logged: string[] } | { lost: string };

interface Pending {
  settle(r: ChildRun): void;
  answer(q: ChildAsk['q']): Promise<unknown>;
}

interface Running {
  child: ChildProcess;
  ready: Promise<string | undefined>;
  pending: Map<number, Pending>;
  ended: string | undefined;
}

let current: Running | undefined;
/** Packages the child treats as not installed: for the tests of `skipped` (what `npm install --omit=optional` leaves out). */
let hidden: readonly string[] = [];
/** Modules the child loads first (`--import`): the offline proof's network guard (suites/clients/offline.test.ts). */
let preloads: readonly string[] = [];
let runIds = 0;

function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of PASSED_ENV) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}

const killAll = (): void => {
  if (current?.child.pid !== undefined) current.child.kill('SIGKILL');
};

function start(): Running {
  const pending = new Map<number, Pending>();
  const running: Running = { child: undefined as unknown as ChildProcess, ready: Promise.resolve(undefined), pending, ended: undefined };
  const end = (reason: string): void => {
    if (running.ended !== undefined) return;
    running.ended = reason;
    if (current === running) current = undefined;
    for (const p of pending.values()) p.settle({ lost: reason });
    pending.clear();
  };
  let child: ChildProcess;
  try {
    child = fork(CHILD_PATH, hidden.map((h) => `--hide=${h}`), { env: childEnv(), execArgv: [...CHILD_EXEC_ARGV, ...preloads.flatMap((p) => ['--import', p])], stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'advanced' });
  } catch (error) {
    const reason = `iari's client process could not be started (${(error as Error).message})`;
    running.ready = Promise.resolve(reason);
    end(reason);
    return running;
  }
  running.child = child;
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    if (stderr.length < 2000) stderr += d.toString('utf8');
  });
  const lastWords = (): string => (stderr.trim() === '' ? '' : `: ${stderr.trim().split('\n').pop() ?? ''}`);
  running.ready = new Promise<string | undefined>((resolve) => {
    const timer = setTimeout(() => {
      resolve(`iari's client process did not start within ${START_TIMEOUT_MS / 1000} s`);
      child.kill('SIGKILL');
    }, START_TIMEOUT_MS);
    timer.unref();
    child.once('error', (e) => {
      clearTimeout(timer);
      resolve(`iari's client process could not be started (${e.message})`);
      end(`iari's client process could not be started (${e.message})`);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const reason = `iari's client process ended (${signal ?? `exit ${String(code)}`}) before the operation answered${lastWords()}`;
      resolve(reason);
      end(reason);
    });
    child.on('message', (m: ChildToMain) => {
      if (m.type === 'ready') {
        clearTimeout(timer);
        resolve(undefined);
      } else if (m.type === 'ask') {
        const p = pending.get(m.run);
        if (p === undefined) return;
        p.answer(m.q).then(
          (a) => send(child, { type: 'answer', ask: m.ask, a }),
          (e: unknown) => send(child, { type: 'answer', ask: m.ask, error: e instanceof Error ? e.message : String(e) }),
        );
      } else if (m.type === 'done') {
        const p = pending.get(m.run);
        pending.delete(m.run);
        p?.settle(fromChild(m));
      }
    });
  });
  // The run does not wait for the child: it ends with this process, or when it is found dead.
  child.unref();
  (child.channel as unknown as Socket | undefined)?.unref?.();
  child.stderr?.on('error', () => undefined);
  (child.stderr as unknown as Socket | null)?.unref?.();
  return running;
}

function send(child: ChildProcess, m: MainToChild): void {
  if (child.connected) child.send(m, (e) => void e);
}

function fromChild(m: ChildDone): ChildRun {
  if ('thrown' in m) return { outcome: { error: new ThrownInClient(m.thrown) }, logged: m.logged };
  return { outcome: { value: m.value }, logged: m.logged };
}

let exitHooked = false;

function running(): Running {
  if (current === undefined || current.ended !== undefined) current = start();
  if (!exitHooked) {
    exitHooked = true;
    process.once('exit', killAll);
  }
  return current;
}

/** CheckDef.prepare of every library operation: the child starts importing now, beside the checks before theirs. */
export function prepareClientProcess(): void {
  running();
}

/**
 * Ends the child; the next operation starts a new one, which treats `hide` as not installed (the
 * tests of `skipped`) and loads `preload` first (the offline proof's guard). Tests only.
 */
export function restartClientProcess(options: { hide?: readonly string[]; preload?: readonly string[] } = {}): void {
  hidden = options.hide ?? [];
  preloads = options.preload ?? [];
  if (current !== undefined) {
    const old = current;
    current = undefined;
    if (old.child.pid !== undefined) old.child.kill('SIGKILL');
  }
}

/** Starts the child if none runs and waits for its greeting: undefined, or why it did not start (tests that must not race its start). */
export function clientProcessReady(): Promise<string | undefined> {
  return running().ready;
}

/** The child's pid, once started (tests). */
export function clientProcessPid(): number | undefined {
  return current?.child.pid;
}

export interface ChildOp {
  /** The operation's name in the child (client-ops.ts). */
  name: string;
  ctx: CheckContext;
  t: ClientTransport;
  model: string;
  /** The key the relay sends in the stand-in's place: the run's token, or the capped account's for the 429 operations. */
  token: string;
  /** The check's deadline: the operation's bound ends a second before it, so a hung child is this module's to report (undecided), never the runner's timeout (a fail). */
  timeoutMs: number;
}

/**
 * Runs one operation in the child, bounded: an answer within `timeoutMs`, or `lost` with the
 * reason (the child is then killed: a hung library can hold its event loop).
 */
export async function runInClientProcess(op: ChildOp): Promise<ChildRun> {
  const r = running();
  const relay = await startClientRelay(op.t, op.token);
  const boundMs = Math.max(500, op.timeoutMs - 1000);
  const askErrors: unknown[] = [];
  let cancel = (): void => undefined;
  try {
    const result = await new Promise<ChildRun>((resolve) => {
      const id = ++runIds;
      let settled = false;
      const settle = (x: ChildRun): void => {
        if (settled) return;
        settled = true;
        r.pending.delete(id);
        resolve(x);
      };
      // As the runner's deadline (check-runner.ts): time spent waiting out rate limits does not count.
      cancel = pausedDeadline(boundMs, () => op.ctx.http.rateLimits?.waitedMs ?? 0, () => {
        settle({ lost: `iari's client process gave no result within ${(boundMs / 1000).toFixed(1)} s (the process was ended)` });
        if (current === r) current = undefined;
        if (r.child.pid !== undefined) r.child.kill('SIGKILL');
      });
      r.pending.set(id, {
        settle,
        answer: (q) =>
          answer(op.ctx, q).catch((error: unknown) => {
            askErrors.push(error);
            throw error;
          }),
      });
      void r.ready.then((failed) => {
        if (settled) return;
        if (failed !== undefined) return settle({ lost: failed });
        const facts: OpFacts = {
          baseUrl: relay.baseUrl,
          key: relay.standInKey,
          model: op.model,
          sendsToken: op.ctx.http.sendsToken,
          unknownModel: unknownModelId(op.ctx),
          expected: [...op.ctx.capabilities.expected],
        };
        send(r.child, { type: 'run', run: id, name: op.name, facts });
      });
      if (r.ended !== undefined) settle({ lost: r.ended });
    });
    // The run's 429 budget spent under it: thrown, so the runner skips the operation and LIMIT-010 reports it.
    const giveUp = relay.errors.map(rateLimitGiveUp).find((e) => e !== undefined);
    if (giveUp !== undefined) throw giveUp;
    // What the operation threw was a probe's error, made here: the operation gets that error itself, as in this process.
    if ('outcome' in result && 'error' in result.outcome && result.outcome.error instanceof ThrownInClient) {
      const text = result.outcome.error.text;
      const own = askErrors.find((e) => e instanceof Error && text.includes(e.message));
      if (own !== undefined) return { ...result, outcome: { error: own } };
    }
    return result;
  } finally {
    cancel();
    await relay.close();
  }
}

function answer(ctx: CheckContext, q: ChildAsk['q']): Promise<unknown> {
  if (q.ask === 'caps') return clientCaps(ctx);
  return probeCapability(ctx, q.cap satisfies Capability);
}
