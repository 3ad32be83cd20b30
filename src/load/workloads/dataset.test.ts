import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encode } from 'gpt-tokenizer';
import { readDataset } from './dataset.ts';

const dir = mkdtempSync(join(tmpdir(), 'iari-dataset-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string): string => {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
};
const words = (n: number, w = 'time'): string => Array.from({ length: n }, () => w).join(' ');
const conv = (prompt: string, answer: string, from = 'human') => ({ id: 'x', conversations: [{ from, value: prompt }, { from: 'gpt', value: answer }, { from: 'human', value: 'more' }] });

describe('--dataset', () => {
  it('reads ShareGPT conversations: first turn the prompt, the second its output length, vLLM length rules applied', async () => {
    const entries = [
      conv(words(10), words(20)), // kept
      conv(words(30, 'music'), words(8, 'river')), // kept
      conv(words(3), words(20)), // prompt under 4 tokens
      conv(words(10), 'ok'), // answer under 4 tokens
      conv(words(1100), words(10)), // prompt over 1024
      conv(words(1000), words(1100)), // together over 2048
      { conversations: [{ from: 'human', value: 'only one turn' }] },
      { id: 'no conversations' },
    ];
    const f = file('sg.json', JSON.stringify(entries, null, 1));
    const { items, info } = await readDataset(f, { size: 100, seed: 1, outputOverride: false });
    expect(info).toMatchObject({ format: 'sharegpt', read: 8, samples: 2, skipped: 6 });
    const byPrompt = new Map(items.map((i) => [i.promptTokens, i]));
    expect(byPrompt.get(10)).toMatchObject({ outputTokens: 20, messages: [{ role: 'user', content: words(10) }] });
    expect(byPrompt.get(30)?.outputTokens).toBe(encode(words(8, 'river')).length);
    // With --output-tokens the answers' lengths (and their minimum) do not matter.
    const over = await readDataset(f, { size: 100, seed: 1, outputOverride: true });
    expect(over.info.samples).toBe(4);
  });

  it('JSONL ShareGPT lines read the same; the sample is seeded (same seed, same order) and bounded by --dataset-size', async () => {
    const lines = Array.from({ length: 50 }, (_, i) => JSON.stringify(conv(`${words(5 + i)}`, words(10)))).join('\n');
    const f = file('sg.jsonl', lines + '\n');
    const a = await readDataset(f, { size: 10, seed: 3, outputOverride: false });
    const b = await readDataset(f, { size: 10, seed: 3, outputOverride: false });
    const c = await readDataset(f, { size: 10, seed: 4, outputOverride: false });
    expect(a.items.length).toBe(10);
    expect(a.items.map((i) => i.promptTokens)).toEqual(b.items.map((i) => i.promptTokens));
    expect(a.items.map((i) => i.promptTokens)).not.toEqual(c.items.map((i) => i.promptTokens));
    expect(new Set(a.items.map((i) => i.promptTokens)).size).toBe(10);
  });

  it('streams a JSON array whose elements span many read buffers (strings with brackets, commas, escaped quotes)', async () => {
    const tricky = 'a "quoted" [bracket], {brace} \\\\ back, ' + words(2000);
    const entries = Array.from({ length: 30 }, (_, i) => conv(`${i} ${tricky.slice(0, 300)} ${words(20)}`, words(40)));
    entries.push(conv(words(900), words(40)));
    const f = file('big.json', JSON.stringify(entries));
    const { items, info } = await readDataset(f, { size: 1000, seed: 1, outputOverride: false });
    expect(info.read).toBe(31);
    expect(items.length).toBe(31);
    expect(items.some((i) => i.promptTokens === 900)).toBe(true);
  });

  it("reads iari's JSONL with per-line max_tokens, in file order", async () => {
    const f = file('iari.jsonl', '{"prompt":"hello there friend","max_tokens":12}\n\n{"messages":[{"role":"user","content":"x"}]}\n');
    const { items, info } = await readDataset(f, { size: 10, seed: 1, outputOverride: false });
    expect(info).toMatchObject({ format: 'iari', samples: 2, read: 2 });
    expect(items[0]).toMatchObject({ outputTokens: 12, promptTokens: 3, messages: [{ role: 'user', content: 'hello there friend' }] });
    expect(items[1]?.outputTokens).toBeNull();
  });

  it('a bad file exits 2 with the place: not JSON, truncated, mixed formats, nothing usable, missing', async () => {
    const cases: [string, RegExp][] = [
      [file('notjson.jsonl', '{"prompt":"a"}\n{oops\n'), /line 2: not JSON/],
      [file('trunc.json', '[{"conversations":[{"value":"a"}'), /not closed/],
      [file('mixed.jsonl', `${JSON.stringify(conv(words(9), words(9)))}\n{"prompt":"x"}\n`), /mixes ShareGPT/],
      [file('nothing.json', JSON.stringify([conv('hi', 'yo')])), /no usable conversation/],
      [file('empty.json', '  \n'), /empty/],
      [file('scalar.json', '42'), /neither a JSON array nor JSONL/],
      [join(dir, 'missing.json'), /ENOENT/],
      [file('badmax.jsonl', '{"prompt":"a","max_tokens":0}\n'), /max_tokens/],
    ];
    for (const [f, pattern] of cases) {
      const error = await readDataset(f, { size: 10, seed: 1, outputOverride: false }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'IARI_INPUT_UNREADABLE', exitCode: 2 });
      expect((error as Error).message).toMatch(pattern);
    }
  });
});

describe('--dataset conversations for --turns', () => {
  it('LOAD-CONVERSATION: keeps every human turn of a ShareGPT entry in order, each with its reference answer\'s length', async () => {
    const entry = { conversations: [{ from: 'human', value: words(10) }, { from: 'gpt', value: words(20) }, { from: 'human', value: words(6, 'music') }, { from: 'gpt', value: words(12) }, { from: 'human', value: words(5, 'river') }] };
    const { items } = await readDataset(file('turns.json', JSON.stringify([entry])), { size: 1, seed: 1, outputOverride: false });
    expect(items[0]?.turns).toEqual([
      { user: words(10), outputTokens: 20 },
      { user: words(6, 'music'), outputTokens: 12 },
      { user: words(5, 'river'), outputTokens: null },
    ]);
  });

  it('LOAD-CONVERSATION: an iari line with several user messages is a conversation of those turns', async () => {
    const line = { messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'first' }, { role: 'assistant', content: 'old answer' }, { role: 'user', content: 'second' }], max_tokens: 9 };
    const { items } = await readDataset(file('turns.jsonl', JSON.stringify(line) + '\n'), { size: 5, seed: 1, outputOverride: false });
    expect(items[0]?.turns).toEqual([{ user: 'first', outputTokens: 9 }, { user: 'second', outputTokens: 9 }]);
  });
});
