/**
 * The floor of the fidelity measurement on this machine: a minimal reader (raw net sockets, a
 * plain HTTP/1.1 request, every 'data' stamped with process.hrtime.bigint(); the only work per
 * read is counting the SSE event boundaries ("\n\n") it completes and spotting the response's
 * end) against the same child mock and schedule as the fidelity bench (TTFT 200 ms, 20 ms between
 * chunks, chunks of 1, 1, 2 tokens). Token counts and content flags come from the mock's send log,
 * so nothing is parsed. Whatever error it shows is outside any engine: the kernel, the scheduler,
 * the mock's record of its writes.
 *
 *   npx tsx scripts/fidelity-floor.ts [--streams=256] [--duration=6] [--nice=-20]
 *   IARI_FLOOR_DUMP=file.json ...   also writes every content event's stamp and write time
 *
 * scripts/bench-load.ts runs it beside each closed fidelity section (runFloor).
 */
import { writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { compareWithSendLog } from '../test-support/load-fidelity.ts';
import { builtinPrompts } from '../src/load/workloads/prompts.ts';
import { promptsWorkload } from '../src/load/workloads/workload.ts';
import { defaultProtocols } from '../src/protocols/registry.ts';
import type { RequestTiming } from '../src/load/measure/request-timer.ts';
import { errorDistribution, type ErrorDistribution } from '../test-support/load-stats.ts';
import { mockLag, startChildMock, stopChild, type MockLag } from './fidelity-child-mock.ts';
import { fetchSendLogFull, gcRecorder, mockWriteLateness, nearGc, raisePriority, schedDelta, schedstat, type GcFigures, type SchedDelta } from './fidelity-diagnostics.ts';
import { CHAT_COMPLETIONS_ROUTE } from '../src/protocols/chat-completions/chat-request.ts';

export const FIDELITY_MOCK = { ttftMs: 200, itlMs: 20, jitterMs: 0, tokensPerChunk: [1, 1, 2], completionTokens: 40, seed: 3 };

/** One response as the floor reader saw it: the stamp of the read that completed each SSE event. */
interface Response {
  sentNs: bigint;
  requestId: string | null;
  eventStamps: BigInt64Array;
  events: number;
}

export interface FloorResult {
  reader: 'raw net sockets, stamp per data event';
  streams: number;
  requests: number;
  missing: number;
  eventCountMismatches: number;
  ttftErrorUs: ErrorDistribution;
  itlErrorUs: ErrorDistribution;
  clientEventLoopLagP99Us: number;
  clientGc: Omit<GcFigures, 'windows'>;
  largeItlErrorsNearGc: { largeItlErrors: number; withGcPause: number };
  mockEventLoopLag: MockLag | null;
  mockWriteLatenessUs: ErrorDistribution;
  /** Scheduler figures of both event-loop threads over the run (Linux /proc; null elsewhere). */
  sched: { client: SchedDelta | null; mock: SchedDelta | null };
  targetMet: boolean;
}

/** Closed loop of `streams` raw sockets for warmup 1 s + `durationS`; requests started in the first second are not measured. */
export async function runFloor(streams: number, durationS: number, nice: number | null = null): Promise<FloorResult> {
  const m = await startChildMock(FIDELITY_MOCK);
  const restore = nice === null ? null : raisePriority(m, nice);
  try {
    const url = new URL(m.url);
    const prompts = promptsWorkload(builtinPrompts, { model: m.model, maxTokens: 4096, stream: true, seed: 1 });
    const bodies = builtinPrompts.map((_, k) => JSON.stringify(defaultProtocols[0].request(prompts.intent(k)).body));
    const request = (seq: number): string => {
      const b = bodies[seq % bodies.length] as string;
      return `POST ${url.pathname}${CHAT_COMPLETIONS_ROUTE} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\nauthorization: Bearer ${m.token}\r\naccept: text/event-stream\r\ncontent-length: ${Buffer.byteLength(b)}\r\n\r\n${b}`;
    };
    const done: Response[] = [];
    let seq = 0;
    const t0 = process.hrtime.bigint() + 50_000_000n;
    const measureFrom = t0 + 1_000_000_000n;
    const stopAt = measureFrom + BigInt(Math.round(durationS * 1e9));
    const gcRec = gcRecorder();
    const eld = monitorEventLoopDelay({ resolution: 1 });
    await mockLag(m, 'start');
    const sockets: Socket[] = [];
    await new Promise((r) => setTimeout(r, 50));
    eld.enable();
    const sc0 = schedstat('self');
    const sm0 = schedstat(m.proc.pid ?? 0);
    await Promise.all(
      Array.from({ length: streams }, () => {
        return new Promise<void>((resolve) => {
          const s = connect({ host: url.hostname, port: Number(url.port), noDelay: true });
          sockets.push(s);
          let cur: Response | null = null;
          let prevByte = 0;
          let tail = '';
          const next = (): void => {
            const n = process.hrtime.bigint();
            if (n >= stopAt) {
              s.destroy();
              resolve();
              return;
            }
            cur = { sentNs: n, requestId: null, eventStamps: new BigInt64Array(64), events: 0 };
            prevByte = 0;
            s.write(request(seq++));
          };
          s.on('data', (chunk: Buffer) => {
            const at = process.hrtime.bigint();
            const r = cur as Response | null;
            if (r === null) return;
            if (r.requestId === null) {
              const i = chunk.indexOf('x-request-id: ');
              if (i >= 0) r.requestId = chunk.toString('latin1', i + 14, chunk.indexOf('\r\n', i));
            }
            // Event boundaries only: every "\n\n" ends one SSE event (chunk framing uses \r\n).
            if (prevByte === 10 && chunk[0] === 10) r.eventStamps[r.events++] = at;
            for (let i = chunk.indexOf('\n\n'); i >= 0; i = chunk.indexOf('\n\n', i + 2)) r.eventStamps[r.events++] = at;
            prevByte = chunk[chunk.length - 1] ?? 0;
            // The terminating zero-length chunk ends the response.
            const n = chunk.length;
            const ended = n >= 5 ? chunk[n - 5] === 48 && chunk[n - 4] === 13 && chunk[n - 3] === 10 && chunk[n - 2] === 13 && chunk[n - 1] === 10 : (tail = (tail + chunk.toString('latin1')).slice(-5)) === '0\r\n\r\n';
            if (n >= 5) tail = '';
            if (ended) {
              if (r.sentNs >= measureFrom) done.push(r);
              next();
            }
          });
          s.on('error', () => resolve());
          s.on('close', () => resolve());
          s.once('connect', next);
        });
      }),
    );
    const sc1 = schedstat('self');
    const sm1 = schedstat(m.proc.pid ?? 0);
    eld.disable();
    const gc = gcRec.stop();
    const lag = await mockLag(m, 'stop');
    const logs = await fetchSendLogFull(m, done.map((r) => r.requestId).filter((x): x is string => x !== null));
    // Event i of the stream is event i of the mock's log; tokens and the content flag come from
    // the log (this reader parses nothing). A different number of events is a mismatch.
    let eventCountMismatches = 0;
    const timings: RequestTiming[] = [];
    for (const [seqNo, r] of done.entries()) {
      const log = logs.get(r.requestId ?? '');
      if (log !== undefined && log.events.length !== r.events) {
        eventCountMismatches++;
        continue;
      }
      const tokenEvents = (log?.events ?? []).flatMap((e, i) => (e.content && e.tokens > 0 ? [{ atNs: r.eventStamps[i] ?? 0n, tokens: e.tokens }] : []));
      timings.push({ seq: seqNo, intendedNs: r.sentNs, sentNs: r.sentNs, headersNs: null, endNs: null, status: 200, requestId: r.requestId, tokenEvents, outputTokens: 0, promptTokens: 0, tokenSource: 'usage', events: r.events, error: null, abortedAtEnd: false });
    }
    if (process.env['IARI_FLOOR_DUMP'] !== undefined) {
      const rows = timings.map((t) => ({ id: t.requestId, seen: t.tokenEvents.map((e) => Number(e.atNs)), sent: (logs.get(t.requestId ?? '')?.events ?? []).filter((e) => e.content && e.tokens > 0).map((e) => [Number(e.writtenNs), e.tokens]) }));
      writeFileSync(process.env['IARI_FLOOR_DUMP'], JSON.stringify({ gc: gc.windows, rows }));
    }
    const f = compareWithSendLog(timings, (id) => logs.get(id)?.events);
    const ttft = errorDistribution(f.ttftErrorsUs);
    const itl = errorDistribution(f.itlErrorsUs);
    return {
      reader: 'raw net sockets, stamp per data event',
      streams,
      requests: f.matched,
      missing: f.missing,
      eventCountMismatches,
      ttftErrorUs: ttft,
      itlErrorUs: itl,
      clientEventLoopLagP99Us: Math.max(0, Math.round((eld.percentile(99) - 1e6) / 1000)),
      clientGc: { count: gc.count, totalMs: gc.totalMs, maxMs: gc.maxMs, minor: gc.minor, major: gc.major },
      largeItlErrorsNearGc: nearGc(timings, logs, gc.windows),
      mockEventLoopLag: lag,
      mockWriteLatenessUs: mockWriteLateness(logs.values()),
      sched: { client: schedDelta(sc0, sc1), mock: schedDelta(sm0, sm1) },
      targetMet: ttft.p99AbsUs <= 1000 && itl.p99AbsUs <= 1000,
    };
  } finally {
    restore?.();
    await stopChild(m);
  }
}

if (process.argv[1]?.endsWith('fidelity-floor.ts')) {
  const arg = (k: string, d: number): number => Number(process.argv.find((a) => a.startsWith(`--${k}=`))?.split('=')[1] ?? d);
  const niceArg = process.argv.find((a) => a.startsWith('--nice='));
  const r = await runFloor(arg('streams', 256), arg('duration', 6), niceArg === undefined ? null : Number(niceArg.slice(7)));
  process.stdout.write(JSON.stringify(r, null, 2) + '\n');
}
