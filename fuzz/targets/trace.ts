import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { HarnessErrorCode } from '../../src/errors.ts';
import { readTrace, type TraceFormat, type TraceOptions, type TraceSpec } from '../../src/load/workloads/trace.ts';
import { asFile, harnessError, shortMessage } from '../temp-file.ts';
import { holds, ownErrorsOnlyAsync, show, text, utf8, type FuzzTarget } from '../target.ts';

const isOwn = harnessError([HarnessErrorCode.INPUT_UNREADABLE, HarnessErrorCode.USAGE]);
const OPTIONS: TraceOptions[] = [
  { speed: 1, window: null },
  { speed: 2.5, window: { startS: 0.05, endS: 30 } },
];

/** The time (ms) and lengths a data line gives, read the plain way (JSON.parse; a comma split for CSV without quotes), or undefined. */
function lineFacts(format: TraceFormat, line: string, header: string[]): { t: number; input: number; output: number } | undefined {
  const body = line.replace(/\r$/, '');
  if (format === 'mooncake') {
    try {
      const o = JSON.parse(body) as { timestamp: number; input_length: number; output_length: number };
      return { t: o.timestamp, input: o.input_length, output: o.output_length };
    } catch {
      return undefined;
    }
  }
  if (body.includes('"')) return undefined;
  const f = body.split(',').map((x) => x.trim());
  const at = (name: string): number => Number(f[header.indexOf(name)]);
  return { t: at('timestamp') * 1000, input: at('request tokens'), output: at('response tokens') };
}

function check(spec: TraceSpec, format: TraceFormat, o: TraceOptions, source: string): void {
  const { entries, info } = spec;
  const lines = source.split('\n');
  holds(entries.length > 0 && info.kept === entries.length && info.read >= info.kept + info.skipped && info.format === format, () => `info ${show(info)} for ${entries.length} entries`);
  const header = format === 'burstgpt' ? (lines.find((l) => l.trim() !== '') ?? '').replace(/\r$/, '').split(',').map((n) => n.trim().toLowerCase()) : [];
  const seen = new Set<number>();
  let last = -Infinity;
  for (const e of entries) {
    holds(e.atMs >= last && e.atMs >= 0 && Number.isFinite(e.atMs), () => `entry of line ${e.line} at ${e.atMs} ms after ${last} ms`);
    last = e.atMs;
    holds(Number.isInteger(e.input) && e.input >= 1 && e.input <= 1_000_000 && Number.isInteger(e.output) && e.output >= 1 && e.output <= 1_000_000, () => `entry of line ${e.line}: lengths ${e.input}, ${e.output}`);
    holds(e.hashIds === null || (format === 'mooncake' && e.hashIds.length > 0 && e.hashIds.every((h) => Number.isSafeInteger(h) && h >= 0)), () => `entry of line ${e.line}: hash ids ${show(e.hashIds)}`);
    holds(Number.isInteger(e.line) && e.line >= 1 && e.line <= lines.length && !seen.has(e.line), () => `entry of line ${e.line} (of ${lines.length}), or two entries of one line`);
    seen.add(e.line);
    // The line it names says the same thing.
    const facts = lineFacts(format, lines[e.line - 1] ?? '', header);
    if (facts === undefined) continue;
    const start = o.window === null ? Math.min(...entries.map((x) => x.atMs)) : 0;
    holds(facts.input === e.input && facts.output === e.output, () => `entry of line ${e.line}: ${e.input}/${e.output}, the line says ${facts.input}/${facts.output}`);
    if (o.window !== null) holds(Math.abs((facts.t - o.window.startS * 1000) / o.speed - e.atMs) < 1e-6 * Math.max(1, Math.abs(e.atMs)), () => `entry of line ${e.line} at ${e.atMs} ms; its timestamp ${facts.t} ms gives ${(facts.t - o.window!.startS * 1000) / o.speed}`);
    else holds(start === 0, () => `the first entry is at ${start} ms, not 0`);
  }
}

function traceTarget(format: TraceFormat, valid: fc.Arbitrary<string>, seed: string): FuzzTarget {
  return {
    name: `trace-${format}`,
    sources: ['src/load/workloads/trace.ts'],
    invariants: [
      'throws nothing but a HarnessError (unreadable input or usage, exit 2) whose message is one line of at most 1,000 characters',
      'the entries are in time order from 0 (or the window\'s start, at the speed given), with lengths 1 to 1,000,000 and the line each came from; the counts add up',
      `each entry says what its line says (${format === 'mooncake' ? 'JSON.parse' : 'a comma split'} of that line)`,
      'one input of up to 64 KiB takes at most 2 s',
    ],
    reference: format === 'mooncake' ? 'JSON.parse of each line' : 'a plain comma split of each line',
    maxLen: 64 * 1024,
    timeBoundMs: 2_000,
    valid: valid.map(utf8),
    seeds: () => [new Uint8Array(readFileSync(new URL(`../../fixtures/traces/${seed}`, import.meta.url)))],
    async: true,
    run: async (input) => {
      const file = asFile(input, format === 'mooncake' ? 'trace.jsonl' : 'trace.csv');
      for (const o of OPTIONS) {
        const r = await ownErrorsOnlyAsync(() => readTrace(file, { ...o, format }), isOwn, 'readTrace');
        if (!r.ok) shortMessage(r.error);
        else check(r.value, format, o, text(input));
      }
    },
  };
}

const length = fc.oneof(fc.integer({ min: 1, max: 1_000_000 }), fc.constantFrom(0, -1, 1_000_001, 1.5));
const eol = fc.constantFrom('\n', '\r\n', '\n\n');
const mooncakeLine = fc
  .record({ timestamp: fc.oneof(fc.nat({ max: 60_000 }), fc.double({ min: 0, max: 60_000, noNaN: true }), fc.constantFrom(-1, '5')), input_length: length, output_length: length, hash_ids: fc.option(fc.array(fc.nat({ max: 9000 }), { maxLength: 6 }), { nil: undefined }) }, { requiredKeys: ['timestamp', 'input_length', 'output_length'] })
  .map((o) => JSON.stringify(o));
const mooncake = fc.tuple(fc.array(fc.tuple(mooncakeLine, eol), { minLength: 1, maxLength: 20 })).map(([ls]) => ls.map(([l, e]) => l + e).join(''));

const columns = ['Timestamp', 'Model', 'Request tokens', 'Response tokens', 'Total tokens', 'Log Type'];
const burstgpt = fc
  .tuple(
    fc.shuffledSubarray(columns, { minLength: 4 }).map((c) => (c.includes('Timestamp') && c.includes('Request tokens') && c.includes('Response tokens') ? c : columns)),
    fc.array(fc.record({ Timestamp: fc.double({ min: 0, max: 100, noNaN: true }).map((d) => d.toFixed(3)), Model: fc.constantFrom('ChatGPT', 'GPT-4', '"GPT, 4"'), 'Request tokens': length.map(String), 'Response tokens': fc.oneof(length.map(String), fc.constant('0')), 'Total tokens': fc.nat().map(String), 'Log Type': fc.constantFrom('Conversation log', 'API log') }), { minLength: 1, maxLength: 20 }),
    eol,
  )
  .map(([cols, rows, e]) => [cols.join(','), ...rows.map((r) => cols.map((c) => r[c as keyof typeof r]).join(','))].join(e) + e);

export const traceMooncake = traceTarget('mooncake', mooncake, 'mooncake-sample.jsonl');
export const traceBurstgpt = traceTarget('burstgpt', burstgpt, 'burstgpt-sample.csv');
