import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isHarnessError } from '../../errors.ts';
import { run as loadCommand } from '../../cli/load-command.ts';
import { countTokens } from './token-count.ts';
import { parseTraceWindow, readTrace } from './trace.ts';
import { traceWorkload } from './trace-workload.ts';
import { bodies } from '../../../test-support/workload-bodies.ts';

const tmp = mkdtempSync(join(tmpdir(), 'iari-trace-unit-'));
const file = (name: string, text: string): string => {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
};
const noWindow = { speed: 1, window: null };

let counter: Server;
let counted = 0;
let origin = '';
beforeAll(async () => {
  counter = createServer((_req, res) => {
    counted++;
    res.writeHead(503).end();
  });
  await new Promise<void>((r) => counter.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(counter.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => counter.close(() => r()));
  rmSync(tmp, { recursive: true, force: true });
});

async function refusal(p: Promise<unknown>): Promise<{ code: string; exit: number; message: string }> {
  try {
    await p;
  } catch (error) {
    if (isHarnessError(error)) return { code: error.code, exit: error.exitCode, message: error.message };
    throw error;
  }
  throw new Error('accepted');
}

describe('--trace files', () => {
  it('LOAD-TRACE: Mooncake lines are read in time order, from the first timestamp, divided by the speed', async () => {
    const f = file('m.jsonl', ['{"timestamp": 500, "input_length": 10, "output_length": 3, "hash_ids": [1]}', '', '{"timestamp": 100, "input_length": 20, "output_length": 4}', '{"timestamp": 900, "input_length": 30, "output_length": 5, "hash_ids": [1, 2]}'].join('\n'));
    const t = await readTrace(f, { speed: 2, window: null });
    expect(t.entries.map((e) => [e.atMs, e.input, e.output, e.hashIds, e.line])).toEqual([
      [0, 20, 4, null, 3],
      [200, 10, 3, [1], 1],
      [400, 30, 5, [1, 2], 4],
    ]);
    expect(t.info).toMatchObject({ format: 'mooncake', read: 3, kept: 3, spanS: 0.4 });
  });

  it('LOAD-TRACE: --trace-window keeps the entries of [START, END) in trace time, timed from START', async () => {
    const f = file('w.jsonl', [0, 1000, 2000, 3000, 4000].map((t) => JSON.stringify({ timestamp: t, input_length: 5, output_length: 2 })).join('\n'));
    const t = await readTrace(f, { speed: 1, window: parseTraceWindow('1s-3s') });
    expect(t.entries.map((e) => e.atMs)).toEqual([0, 1000]);
    expect((await readTrace(f, { speed: 1, window: parseTraceWindow('2500ms-') })).entries.map((e) => e.atMs)).toEqual([500, 1500]);
    expect(() => parseTraceWindow('3s-1s')).toThrow(/END after START/);
    expect(() => parseTraceWindow('later')).toThrow(/START-END/);
    expect((await refusal(readTrace(f, { speed: 1, window: parseTraceWindow('10s-20s') }))).message).toMatch(/no request to replay in the window 10s-20s \(the trace spans 0\.000s-4\.000s\)/);
  });

  it('LOAD-TRACE: a BurstGPT CSV is read by column name (quoted fields too) and its failed rows (0 response tokens) are skipped', async () => {
    const f = file('b.csv', 'Model,"Timestamp",Request tokens,Response tokens,Total tokens,Log Type\r\n"GPT-4",1.5,100,20,120,Conversation log\r\nChatGPT,2,50,0,50,API log\r\nChatGPT,4.25,7,9,16,"API, log"\r\n');
    const t = await readTrace(f, noWindow);
    expect(t.info).toMatchObject({ format: 'burstgpt', read: 3, kept: 2, skipped: 1 });
    expect(t.entries.map((e) => [e.atMs, e.input, e.output, e.line])).toEqual([
      [0, 100, 20, 2],
      [2750, 7, 9, 4],
    ]);
  });

  it('LOAD-TRACE: a bad line is refused naming the file and the line, as a usage error (exit 2)', async () => {
    const cases: [string, string, RegExp][] = [
      ['bad-json.jsonl', '{"timestamp":1,"input_length":5,"output_length":2}\n{"timestamp":2,"input_length":5,\n', /bad-json\.jsonl line 2: not JSON/],
      ['no-input.jsonl', '{"timestamp":1,"input_length":5,"output_length":2}\n\n{"timestamp":2,"output_length":2}\n', /no-input\.jsonl line 3: "input_length" must be an integer/],
      ['bad-ids.jsonl', '{"timestamp":1,"input_length":5,"output_length":2,"hash_ids":[1,"x"]}\n', /bad-ids\.jsonl line 1: "hash_ids" must be an array/],
      ['neg-time.jsonl', '{"timestamp":-4,"input_length":5,"output_length":2}\n', /neg-time\.jsonl line 1: "timestamp" must be a number of ms/],
      ['no-column.csv', 'Timestamp,Model,Request tokens\n1,a,2\n', /no-column\.csv line 1: the header has no "Response tokens" column/],
      ['bad-row.csv', 'Timestamp,Request tokens,Response tokens\n1,2,3\n2,two,3\n', /bad-row\.csv line 3: "Request tokens" must be an integer/],
    ];
    for (const [name, text, message] of cases) {
      const r = await refusal(readTrace(file(name, text), noWindow));
      expect(r.message, name).toMatch(message);
      expect(r.exit, name).toBe(2);
    }
    expect((await refusal(readTrace(join(tmp, 'missing.jsonl'), noWindow))).message).toMatch(/cannot read --trace .*missing\.jsonl: ENOENT/);
  });

  it('LOAD-TRACE: a refusal quotes the line\'s values and the header clipped, so it stays one readable line (fuzz finding)', async () => {
    const long = 't'.repeat(5000);
    for (const [name, text] of [
      ['long-header.csv', `${long},Request tokens,Response tokens\n1,2,3\n`],
      ['long-time.jsonl', `{"timestamp":"${long}","input_length":5,"output_length":2}\n`],
      ['long-cell.csv', `Timestamp,Request tokens,Response tokens\n1,${long},3\n`],
    ] as const) {
      const r = await refusal(readTrace(file(name, text), noWindow));
      expect(r.message.length, name).toBeLessThan(500);
      expect(r.exit, name).toBe(2);
    }
  });

  it('LOAD-TRACE: iari load refuses a bad trace line with exit 2 before any traffic, and refuses flags the trace replaces', async () => {
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    process.env['IARI_TRACE_TOKEN'] = 'sk-trace-0123456789';
    const f = file('cli.jsonl', '{"timestamp":1,"input_length":5,"output_length":2}\n{"timestamp":"soon","input_length":5,"output_length":2}\n');
    const base = ['--base-url', `${origin}/v1`, '--token-env', 'IARI_TRACE_TOKEN', '--model', 'm', '--report', join(tmp, 'r'), '--quiet'];
    const r = await refusal(loadCommand([...base, '--trace', f]));
    expect(r).toMatchObject({ exit: 2 });
    expect(r.message).toMatch(/cli\.jsonl line 2: "timestamp"/);
    for (const extra of [['--rate', '5'], ['--input-tokens', '100'], ['--prefix-tokens', '64'], ['--concurrency', '2']]) {
      expect((await refusal(loadCommand([...base, '--trace', f, ...extra]))).exit, extra.join(' ')).toBe(2);
    }
    expect((await refusal(loadCommand([...base, '--trace-speed', '2']))).message).toMatch(/--trace-speed needs --trace/);
    expect((await refusal(loadCommand([...base, '--trace', f, '--trace-speed', '0']))).message).toMatch(/--trace-speed must be a number/);
    expect(counted).toBe(0);
    vi.restoreAllMocks();
  });
});

describe('trace prompts', () => {
  it('LOAD-TRACE: each prompt is exactly input_length o200k tokens, and entries sharing hash ids share exactly those 512-token blocks', () => {
    const entries = [
      { atMs: 0, input: 1100, output: 3, hashIds: [7, 8, 9], line: 1 },
      { atMs: 1, input: 1030, output: 3, hashIds: [7, 8, 4], line: 2 },
      { atMs: 2, input: 700, output: 3, hashIds: [7], line: 3 },
      { atMs: 3, input: 40, output: 3, hashIds: null, line: 4 },
    ];
    const w = traceWorkload(entries, { model: 'm', stream: true, seed: 3, maxTokensField: 'max_tokens', extraBody: null });
    const prompts = entries.map((_, i) => JSON.parse(bodies(w)(i)) as { messages: { content: string }[]; max_tokens: number });
    prompts.forEach((p, i) => {
      expect(countTokens(p.messages[0]?.content ?? '')).toBe(entries[i]?.input);
      expect(p.max_tokens).toBe(3);
    });
    const words = prompts.map((p) => (p.messages[0]?.content ?? '').split(' '));
    // Two shared blocks, then different.
    expect(words[1]?.slice(0, 1024)).toEqual(words[0]?.slice(0, 1024));
    expect(words[1]?.slice(1024, 1030)).not.toEqual(words[0]?.slice(1024, 1030));
    // One shared block, then its own words.
    expect(words[2]?.slice(0, 512)).toEqual(words[0]?.slice(0, 512));
    expect(words[2]?.slice(512, 600)).not.toEqual(words[0]?.slice(512, 600));
    expect(w.requested(1)).toEqual({ prompt: 1030, output: 3 });
  });
});
