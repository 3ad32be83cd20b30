import type { HttpExchange } from '../http/check-http.ts';
import { at, isRecord } from '../kernel/evidence.ts';
import { streamChunks } from '../../protocols/chat-completions/stream-chunks.ts';

/** The tool-call deltas of choice 0, in the order they were streamed (data: lines of the body). */
export function toolDeltas(ex: HttpExchange): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const chunk of streamChunks(ex)) {
    const deltas = at(chunk, 'choices', 0, 'delta', 'tool_calls');
    if (Array.isArray(deltas)) for (const d of deltas) if (isRecord(d)) out.push(d);
  }
  return out;
}

export interface StreamedCall {
  index: unknown;
  ids: Set<string>;
  names: Set<string>;
  args: string;
}

/** The calls as a client that merges by index sees them (openai-node, LangChain). */
export function callsByIndex(deltas: readonly Record<string, unknown>[]): StreamedCall[] {
  const calls = new Map<unknown, StreamedCall>();
  for (const d of deltas) {
    const c = calls.get(d['index']) ?? { index: d['index'], ids: new Set<string>(), names: new Set<string>(), args: '' };
    const id = d['id'];
    if (typeof id === 'string' && id !== '') c.ids.add(id);
    const name = at(d, 'function', 'name');
    if (typeof name === 'string' && name !== '') c.names.add(name);
    const args = at(d, 'function', 'arguments');
    if (typeof args === 'string') c.args += args;
    calls.set(d['index'], c);
  }
  return [...calls.values()];
}

/** How many calls a streamed turn carries, counting distinct indexes, ids or names (calls sharing one index still count). */
export function streamedCallCount(calls: readonly StreamedCall[]): number {
  return Math.max(calls.length, new Set(calls.flatMap((c) => [...c.ids])).size, new Set(calls.flatMap((c) => [...c.names])).size);
}
