import { rngFor, syntheticVocabulary, type MaxTokensField, type Requested, type Workload } from './workload.ts';
import { TRACE_BLOCK_TOKENS, type TraceEntry } from './trace.ts';
import type { RequestIntent } from '../../protocols/protocol.ts';

/** Blocks kept built (each 512 words); older ones are built again when a trace comes back to them. */
const BLOCK_MEMO = 4096;

/**
 * The requests of a trace replay. Request `seq` is the trace's entry `seq` (in time order): one user
 * message of exactly `input` o200k tokens and `output` as its output bound. A Mooncake entry's prompt is
 * its hash blocks in order, each the same 512 words wherever the id occurs (drawn from the seed
 * and the id), cut to `input` tokens, then padded with words of its own when `input` is longer:
 * requests sharing a hash-id prefix share exactly that prompt prefix, so a prefix cache serves it.
 * The words are one token each with or without a leading space (workload.ts), so lengths are exact.
 */
export function traceWorkload(entries: readonly TraceEntry[], o: { model: string; stream: boolean; seed: number; maxTokensField: MaxTokensField; extraBody: Record<string, unknown> | null }): Workload {
  const words = syntheticVocabulary();
  const memo = new Map<number, string[]>();
  const block = (id: number): string[] => {
    let b = memo.get(id);
    if (b === undefined) {
      const rnd = rngFor(o.seed ^ 0x7ace, id, 6);
      b = new Array<string>(TRACE_BLOCK_TOKENS);
      for (let i = 0; i < TRACE_BLOCK_TOKENS; i++) b[i] = words[Math.floor(rnd() * words.length)] ?? 'time';
      memo.set(id, b);
      if (memo.size > BLOCK_MEMO) memo.delete(memo.keys().next().value as number);
    }
    return b;
  };
  const prompt = (seq: number, e: TraceEntry): string => {
    const parts: string[] = [];
    let left = e.input;
    for (const id of e.hashIds ?? []) {
      if (left <= 0) break;
      const b = block(id);
      parts.push(left >= b.length ? b.join(' ') : b.slice(0, left).join(' '));
      left -= Math.min(left, b.length);
    }
    if (left > 0) {
      const rnd = rngFor(o.seed, seq, 7);
      const own = new Array<string>(left);
      for (let i = 0; i < left; i++) own[i] = words[Math.floor(rnd() * words.length)] ?? 'time';
      parts.push(own.join(' '));
    }
    return parts.join(' ');
  };
  const entry = (seq: number): TraceEntry | undefined => entries[seq];
  return {
    requested: (seq: number): Requested => {
      const e = entry(seq);
      return { prompt: e?.input ?? null, output: e?.output ?? null };
    },
    intent: (seq: number): RequestIntent => {
      const e = entry(seq);
      return { model: o.model, messages: [{ role: 'user', content: e === undefined ? '' : prompt(seq, e) }], maxOutputTokens: e?.output ?? 1, outputLimitMember: o.maxTokensField, stream: o.stream, extraBody: o.extraBody };
    },
    outputIs: 'target',
  };
}

/** The replay's schedule: the entries' intended times, s after t = 0 (entries are in time order). */
export function* traceTimes(entries: readonly TraceEntry[]): Generator<number, void, void> {
  for (const e of entries) yield e.atMs / 1000;
}
