import type { StreamEvent } from './types.ts';

type Json = Record<string, unknown>;

/** The JSON object an event's `data: {...}` carries (a copy the caller may change), or undefined when it carries none. */
export function chunkOf(e: StreamEvent): Json | undefined {
  if (!e.data.startsWith('data: {')) return undefined;
  try {
    return JSON.parse(e.data.slice(6)) as Json;
  } catch {
    return undefined;
  }
}

/** The event carrying `chunk` instead, in canonical framing, at the same time. */
export const withChunk = (e: StreamEvent, chunk: Json): StreamEvent => ({ ...e, data: `data: ${JSON.stringify(chunk)}\n\n` });

/** The members every chunk of a stream repeats, from its first chunk (usage null where the stream reports usage). */
export const chunkBase = (first: Json): Json => ({ id: first['id'], object: first['object'], created: first['created'], model: first['model'], ...('usage' in first ? { usage: null } : {}) });
