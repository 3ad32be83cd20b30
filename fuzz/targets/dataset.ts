import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { HarnessErrorCode } from '../../src/errors.ts';
import { readDataset, type DatasetOptions } from '../../src/load/workloads/dataset.ts';
import { parsed } from '../json-shape.ts';
import { asFile, harnessError, shortMessage } from '../temp-file.ts';
import { holds, ownErrorsOnlyAsync, show, text, utf8, type FuzzTarget } from '../target.ts';

const isOwn = harnessError([HarnessErrorCode.INPUT_UNREADABLE]);
const OPTIONS: DatasetOptions[] = [
  { size: 3, seed: 1, outputOverride: false },
  { size: 40, seed: 7, outputOverride: true },
];
const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/** The prompts of a file whose every entry is {"prompt": "..."} (a JSON array or JSONL), read the plain way; else undefined. */
function plainPrompts(source: string): string[] | undefined {
  const whole = parsed(source);
  const entries = whole !== undefined && Array.isArray(whole.value) ? (whole.value as unknown[]) : source.trim().startsWith('{') ? source.split('\n').filter((l) => l.trim() !== '').map((l) => parsed(l)?.value) : undefined;
  if (entries === undefined || entries.length === 0) return undefined;
  const prompts = entries.map((e) => (e !== null && typeof e === 'object' && !Array.isArray(e) && Object.keys(e).length === 1 && typeof (e as { prompt?: unknown }).prompt === 'string' ? (e as { prompt: string }).prompt : undefined));
  return prompts.every((p) => p !== undefined && p.length > 0) ? (prompts as string[]) : undefined;
}

async function run(input: Uint8Array): Promise<void> {
  const file = asFile(input, 'dataset.json');
  const source = text(input);
  for (const o of OPTIONS) {
    const r = await ownErrorsOnlyAsync(() => readDataset(file, o), isOwn, 'readDataset');
    if (!r.ok) {
      shortMessage(r.error);
      continue;
    }
    const { items, info } = r.value;
    holds(items.length >= 1 && items.length <= o.size && info.samples === items.length && info.read >= items.length, () => `${items.length} items of ${o.size}, info ${show(info)}`);
    for (const item of items) {
      holds(item.messages.length > 0 && item.messages.every((m) => ROLES.has(m.role) && typeof m.content === 'string'), () => `messages ${show(item.messages)}`);
      // A line's max_tokens is 1 to 1,000,000; a ShareGPT answer's length may be 0 when --output-tokens overrides it.
      holds(item.outputTokens === null || (Number.isInteger(item.outputTokens) && item.outputTokens >= (info.format === 'iari' ? 1 : 0) && item.outputTokens <= 1_000_000), () => `output tokens ${item.outputTokens}`);
      if (info.format === 'sharegpt') {
        const p = item.promptTokens ?? -1;
        // vLLM's is_valid_sequence: a prompt of 4 to 1024 tokens, an answer of at least 4, both together at most 2048 (the answer's rules off under --output-tokens).
        holds(p >= 4 && p <= 1024 && (o.outputOverride || ((item.outputTokens ?? 0) >= 4 && p + (item.outputTokens ?? 0) <= 2048)), () => `a ShareGPT pair of ${p} + ${item.outputTokens} tokens kept`);
      }
    }
    // The same seed reads the same sample.
    const again = await readDataset(file, o);
    holds(isDeepStrictEqual(again, r.value), () => 'read twice with the same seed, the sample differs');
    const prompts = plainPrompts(source);
    if (prompts !== undefined) holds(isDeepStrictEqual(items.map((i) => i.messages[0]?.content), prompts.slice(0, o.size)), () => `the prompts read are not the file's first ${o.size}: ${show(items.map((i) => i.messages[0]?.content))} vs ${show(prompts.slice(0, o.size))}`);
  }
}

const turn = (from: string) => fc.record({ from: fc.constant(from), value: fc.oneof(fc.lorem({ maxCount: 30 }), fc.string({ maxLength: 40 })) });
const conversation = fc.record({ id: fc.string({ maxLength: 6 }), conversations: fc.array(fc.oneof(turn('human'), turn('gpt')), { maxLength: 5 }) });
const iariLine = fc.oneof(
  fc.record({ prompt: fc.string({ minLength: 1, maxLength: 40 }) }),
  fc.record({ messages: fc.array(fc.record({ role: fc.constantFrom('system', 'user', 'assistant', 'tool', 'robot'), content: fc.string({ maxLength: 30 }) }), { maxLength: 3 }), max_tokens: fc.option(fc.integer({ min: -1, max: 2_000_000 }), { nil: undefined }) }, { requiredKeys: ['messages'] }),
);
const datasets = fc.oneof(
  fc.array(conversation, { maxLength: 8 }).map((cs) => JSON.stringify(cs, null, Math.random() < 0.5 ? 0 : 1)),
  fc.array(conversation, { maxLength: 8 }).map((cs) => cs.map((c) => JSON.stringify(c)).join('\n')),
  fc.array(iariLine, { minLength: 1, maxLength: 8 }).map((ls) => ls.map((l) => JSON.stringify(l)).join(Math.random() < 0.5 ? '\n' : '\r\n')),
  fc.array(iariLine, { minLength: 1, maxLength: 8 }).map((ls) => JSON.stringify(ls)),
);

export const dataset: FuzzTarget = {
  name: 'dataset',
  sources: ['src/load/workloads/dataset.ts', 'src/load/workloads/prompts.ts'],
  invariants: [
    'throws nothing but a HarnessError (unreadable input, exit 2) whose message is one line of at most 1,000 characters',
    'it keeps 1 to size conversations of well-formed messages; a ShareGPT pair kept meets vLLM\'s length rules; the same seed reads the same sample',
    'a file of {"prompt"} entries (JSON array or JSONL) gives its first prompts in order, as JSON.parse reads them',
    'one input of up to 64 KiB takes at most 3 s (tokenizing included)',
  ],
  reference: 'JSON.parse of the file or its lines; vLLM\'s ShareGPT length rules',
  maxLen: 64 * 1024,
  timeBoundMs: 3_000,
  valid: datasets.map(utf8),
  async: true,
  run,
};
