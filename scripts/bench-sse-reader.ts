/**
 * How much CPU the strict SSE reader + stream checker costs per read, beside a naive baseline
 * (`buffer.toString()` + `split('\n\n')` + `JSON.parse`), in one run on one core.
 *
 *   npx tsx scripts/bench-sse-reader.ts [--streams 200] [--events 200] [--rounds 3]
 *
 * Streams are interleaved read by read (round robin over all open streams), as the load engine
 * sees them at that concurrency. Each figure is measured around the call that consumes one read.
 * Writes reports/bench/sse-reader.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { build } from 'hdr-histogram-js';
import { seededRandom } from '../src/seeded-random.ts';
import { SseReader } from '../src/client/sse-reader.ts';
import { StreamValidator } from '../src/protocols/chat-completions/stream-checker.ts';
import { ruleGrades } from '../src/checks/registry/registry-view.ts';
import { defaultProtocols } from '../src/protocols/registry.ts';
import { FIXTURE_CREATED, frame, textCompletion, usageChunk } from '../test-support/stream-builder.ts';

const { values } = parseArgs({
  options: {
    streams: { type: 'string', default: '200' },
    events: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '3' },
    out: { type: 'string', default: 'reports/bench/sse-reader.json' },
  },
});
const STREAMS = Number(values.streams);
const EVENTS = Number(values.events);
const ROUNDS = Number(values.rounds);
if (![STREAMS, EVENTS, ROUNDS].every((n) => Number.isInteger(n) && n > 0 && n <= 100_000)) {
  process.stderr.write('--streams, --events and --rounds must be positive integers\n');
  process.exit(2);
}

const words = ['Hello', ' world', ',', ' héllo', ' 世界', ' 😀', ' the', ' quick', ' brown', ' fox'];
const pieces = Array.from({ length: EVENTS }, (_, i) => words[i % words.length] as string);
const events = [...textCompletion(pieces, { usage: 'null' }), usageChunk(12, EVENTS)];
const streamBytes = Buffer.from(frame(events), 'utf8');
const eventCount = events.length + 1;

/** Deterministic splits: one event per read, several events per read, or ragged TCP-like reads. */
function splitStream(mode: 'event' | 'coalesced' | 'ragged', seed: number): Buffer[] {
  const text = streamBytes;
  const bounds: number[] = [];
  for (let i = text.indexOf('\n\n'); i !== -1; i = text.indexOf('\n\n', i + 2)) bounds.push(i + 2);
  const out: Buffer[] = [];
  if (mode === 'event') {
    let prev = 0;
    for (const b of bounds) {
      out.push(text.subarray(prev, b));
      prev = b;
    }
  } else if (mode === 'coalesced') {
    let prev = 0;
    for (let k = 3; k < bounds.length + 3; k += 4) {
      const b = bounds[Math.min(k, bounds.length - 1)] as number;
      if (b > prev) out.push(text.subarray(prev, b));
      prev = b;
    }
  } else {
    const rnd = seededRandom(seed);
    for (let at = 0; at < text.length; ) {
      const n = 1 + Math.floor(rnd() * 160);
      out.push(text.subarray(at, at + n));
      at += n;
    }
  }
  // Copies, as the socket would hand over fresh buffers.
  return out.map((b) => Buffer.from(b));
}

interface Consumer {
  feed(chunk: Buffer, at: bigint): void;
  end(): unknown;
}

class NaiveBaseline implements Consumer {
  #buf = '';
  parsed = 0;
  feed(chunk: Buffer): void {
    this.#buf += chunk.toString();
    const parts = this.#buf.split('\n\n');
    this.#buf = parts.pop() ?? '';
    for (const p of parts) {
      const data = p.slice(6);
      if (data !== '[DONE]') JSON.parse(data);
      this.parsed++;
    }
  }
  end(): number {
    return this.parsed;
  }
}

class ReaderOnly implements Consumer {
  readonly #r = new SseReader();
  feed(chunk: Buffer, at: bigint): void {
    const evs = this.#r.feed(chunk, at);
    for (const ev of evs) if (ev.data !== '[DONE]') JSON.parse(ev.data);
  }
  end(): unknown {
    return this.#r.end();
  }
}

const gradeOfRule = ruleGrades();

class Full implements Consumer {
  readonly #v = new StreamValidator({ includeUsage: true, nowSeconds: FIXTURE_CREATED });
  feed(chunk: Buffer, at: bigint): void {
    this.#v.feed(chunk, at);
  }
  end(): unknown {
    const r = this.#v.end();
    if (r.findings.some((f) => gradeOfRule(defaultProtocols[0], f.rule) !== 'INFO')) throw new Error(`benchmark stream did not pass: ${JSON.stringify(r.findings.slice(0, 3))}`);
    return r;
  }
}

interface Figures {
  reads: number;
  events: number;
  totalMs: number;
  eventsPerSecond: number;
  readsPerSecond: number;
  perRead: { p50Us: number; p90Us: number; p99Us: number; p999Us: number; maxUs: number; meanUs: number };
}

function runOnce(make: () => Consumer, reads: Buffer[][]): Figures {
  const hist = build({ lowestDiscernibleValue: 1, highestTrackableValue: 10_000_000_000, numberOfSignificantValueDigits: 3 });
  const consumers = Array.from({ length: STREAMS }, make);
  const cursor = new Array<number>(STREAMS).fill(0);
  let open = STREAMS;
  let readCount = 0;
  const t0 = process.hrtime.bigint();
  while (open > 0) {
    for (let s = 0; s < STREAMS; s++) {
      const list = reads[s % reads.length] as Buffer[];
      const i = cursor[s] as number;
      if (i > list.length) continue;
      const c = consumers[s] as Consumer;
      const before = process.hrtime.bigint();
      if (i === list.length) {
        c.end();
        open--;
      } else {
        c.feed(list[i] as Buffer, before);
        readCount++;
      }
      hist.recordValue(Number(process.hrtime.bigint() - before));
      cursor[s] = i + 1;
    }
  }
  const totalNs = Number(process.hrtime.bigint() - t0);
  const us = (ns: number): number => Math.round(ns / 10) / 100;
  const figures: Figures = {
    reads: readCount,
    events: STREAMS * eventCount,
    totalMs: Math.round(totalNs / 1e4) / 100,
    eventsPerSecond: Math.round((STREAMS * eventCount) / (totalNs / 1e9)),
    readsPerSecond: Math.round(readCount / (totalNs / 1e9)),
    perRead: {
      p50Us: us(hist.getValueAtPercentile(50)),
      p90Us: us(hist.getValueAtPercentile(90)),
      p99Us: us(hist.getValueAtPercentile(99)),
      p999Us: us(hist.getValueAtPercentile(99.9)),
      maxUs: us(hist.maxValue),
      meanUs: us(hist.mean),
    },
  };
  hist.destroy();
  return figures;
}

function best(make: () => Consumer, reads: Buffer[][]): Figures {
  runOnce(make, reads); // warm-up
  let keep: Figures | undefined;
  for (let r = 0; r < ROUNDS; r++) {
    const f = runOnce(make, reads);
    if (keep === undefined || f.perRead.p99Us < keep.perRead.p99Us) keep = f;
  }
  return keep as Figures;
}

const modes = ['event', 'coalesced', 'ragged'] as const;
const results: Record<string, Record<string, Figures | number>> = {};
const lines: string[] = [];
for (const mode of modes) {
  const reads = Array.from({ length: 8 }, (_, i) => splitStream(mode, 17 + i));
  const baseline = best(() => new NaiveBaseline(), reads);
  const reader = best(() => new ReaderOnly(), reads);
  const full = best(() => new Full(), reads);
  results[mode] = {
    baseline,
    readerPlusJson: reader,
    readerPlusChecker: full,
    p99RatioVsBaseline: Math.round((full.perRead.p99Us / Math.max(0.01, baseline.perRead.p99Us)) * 100) / 100,
    throughputRatioVsBaseline: Math.round((full.eventsPerSecond / baseline.eventsPerSecond) * 100) / 100,
  };
  for (const [name, f] of [['baseline split+JSON.parse', baseline], ['reader + JSON.parse', reader], ['reader + checker', full]] as const) {
    lines.push(
      `${mode.padEnd(10)} ${name.padEnd(26)} ${String(f.eventsPerSecond).padStart(9)} ev/s  ${String(f.readsPerSecond).padStart(9)} reads/s  per read p50 ${f.perRead.p50Us} us  p99 ${f.perRead.p99Us} us  p99.9 ${f.perRead.p999Us} us`,
    );
  }
}

const worstP99 = Math.max(...modes.map((m) => ((results[m]?.['readerPlusChecker'] as Figures).perRead.p99Us)));
const report = {
  bench: 'sse-reader',
  node: process.version,
  date: new Date().toISOString(),
  config: { streams: STREAMS, eventsPerStream: eventCount, streamBytes: streamBytes.length, rounds: ROUNDS },
  target: { perReadP99Us: 1000, concurrentStreams: 200 },
  worstPerReadP99Us: worstP99,
  meetsTarget: worstP99 <= 1000,
  results,
};
mkdirSync('reports/bench', { recursive: true });
writeFileSync(values.out, JSON.stringify(report, null, 2) + '\n');
process.stdout.write(`${STREAMS} concurrent streams x ${eventCount} events (${streamBytes.length} bytes each), best of ${ROUNDS}\n`);
process.stdout.write(lines.join('\n') + '\n');
process.stdout.write(`worst per-read p99 of reader + checker: ${worstP99} us (target <= 1000 us): ${worstP99 <= 1000 ? 'met' : 'MISSED'}\nwrote ${values.out}\n`);
