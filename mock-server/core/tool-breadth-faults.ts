import type { FaultDefinition } from './fault-catalogue.ts';
import type { StreamEvent } from './types.ts';
import { chunkOf, withChunk } from './event-chunks.ts';

// Faults of tool-calling breadth (issue 19): parallel calls streamed at one index (Ollama) or with one
// id, nested arguments sent as strings, tool_choice "required" ignored, and a legal mode whose
// parallel calls interleave their argument deltas. Each breaks one TOOLS requirement.

type Json = Record<string, unknown>;

const f = (name: string, breaks: string[], description: string): FaultDefinition => ({ name, kind: 'fault', breaks, description });
const legal = (name: string, exercises: string[], description: string): FaultDefinition => ({ name, kind: 'legal', breaks: [], exercises, description });

export const toolBreadthFaults: readonly FaultDefinition[] = [
  f('tool-choice-required-ignored', ['TOOLS-023', 'TOOLS-027'], 'tool_choice "required" is treated as "none": the answer is text.'),
  // A server that drops tool_choice (as @dwmkerr/mock-llm's default rule, which never reads the body) has not claimed the capability
  // (TOOLS-018/019/023 are skipped) but breaks TOOLS-027: an accepted tool_choice must be enforced or refused (issue 37).
  f('tool-choice-ignored', ['TOOLS-027'], 'tool_choice is silently ignored: every request is answered as with "auto" (TOOLS-018, TOOLS-019 and TOOLS-023 fail too under --expect tool-choice).'),
  f('parallel-calls-one-index', ['TOOLS-024'], 'Streamed parallel tool calls are all sent at index 0, as Ollama does (each with its own id and name).'),
  f('parallel-calls-same-id', ['TOOLS-003', 'TOOLS-025'], 'Every tool call of a turn carries the id of the first one (streamed and not).'),
  f('tool-args-nested-stringified', ['TOOLS-026'], 'Non-streamed tool arguments carry each nested object or array as a JSON string.'),
  legal('legal-interleaved-tool-deltas', ['TOOLS-024', 'TOOLS-025'], 'The argument deltas of parallel streamed tool calls interleave (call 0, call 1, call 0, ...), each at its own index.'),
];

export const toolBreadthNames: ReadonlySet<string> = new Set(toolBreadthFaults.map((x) => x.name));

/** tool_choice as a server with tool-choice-required-ignored understands it. */
export function rewriteToolChoice(body: Json, fs: ReadonlySet<string>): void {
  if (fs.has('tool-choice-required-ignored') && body['tool_choice'] === 'required') body['tool_choice'] = 'none';
  if (fs.has('tool-choice-ignored')) delete body['tool_choice'];
}

/** Non-streamed completion: ids made equal, nested arguments stringified. */
export function mutateToolCalls(calls: Json[], fs: ReadonlySet<string>): void {
  const firstId = calls[0]?.['id'];
  for (const call of calls) {
    if (fs.has('parallel-calls-same-id') && firstId !== undefined) call['id'] = firstId;
    const fn = call['function'] as Json | undefined;
    if (fs.has('tool-args-nested-stringified') && fn !== undefined && typeof fn['arguments'] === 'string') {
      try {
        const args = JSON.parse(fn['arguments']) as unknown;
        if (typeof args === 'object' && args !== null && !Array.isArray(args)) {
          fn['arguments'] = JSON.stringify(Object.fromEntries(Object.entries(args).map(([k, v]) => [k, typeof v === 'object' && v !== null ? JSON.stringify(v) : v])));
        }
      } catch {
        // arguments that are not JSON stay as they are
      }
    }
  }
}

function deltasOf(c: Json | undefined): Json[] {
  const choice = (Array.isArray(c?.['choices']) ? (c['choices'] as Json[]) : [])[0];
  const delta = choice?.['delta'] as Json | undefined;
  return Array.isArray(delta?.['tool_calls']) ? (delta['tool_calls'] as Json[]) : [];
}

/** Streamed events: indexes collapsed, ids made equal, or parallel calls interleaved. */
export function mutateToolEvents(events: StreamEvent[], fs: ReadonlySet<string>): StreamEvent[] {
  if (![...toolBreadthNames].some((n) => fs.has(n))) return events;
  let out = events;
  if (fs.has('parallel-calls-one-index') || fs.has('parallel-calls-same-id')) {
    let firstId: unknown;
    out = out.map((e) => {
      const c = chunkOf(e);
      const deltas = deltasOf(c);
      if (c === undefined || deltas.length === 0) return e;
      for (const d of deltas) {
        if (d['id'] !== undefined && firstId === undefined) firstId = d['id'];
        if (fs.has('parallel-calls-one-index')) d['index'] = 0;
        if (fs.has('parallel-calls-same-id') && d['id'] !== undefined) d['id'] = firstId;
      }
      return withChunk(e, c);
    });
  }
  if (fs.has('legal-interleaved-tool-deltas')) {
    // The slots holding tool-call deltas keep their times; their contents are dealt round-robin by index.
    const slots = out.map((e, i) => ({ e, i, idx: deltasOf(chunkOf(e)).map((d) => d['index']) })).filter((s) => s.idx.length === 1);
    const byIndex = new Map<unknown, StreamEvent[]>();
    for (const s of slots) byIndex.set(s.idx[0], [...(byIndex.get(s.idx[0]) ?? []), s.e]);
    if (byIndex.size >= 2) {
      const queues = [...byIndex.values()];
      const dealt: StreamEvent[] = [];
      while (queues.some((q) => q.length > 0)) for (const q of queues) { const next = q.shift(); if (next !== undefined) dealt.push(next); }
      out = [...out];
      slots.forEach((s, k) => {
        const d = dealt[k];
        if (d !== undefined) out[s.i] = { ...d, atMs: s.e.atMs };
      });
    }
  }
  return out;
}
