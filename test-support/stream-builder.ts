/**
 * Builds chat completion streams byte for byte: the fixtures generator and the checker's tests
 * use it to write conforming streams and to break exactly one rule at a time.
 */

export const FIXTURE_CREATED = 1_790_000_000;

export interface Envelope {
  id: string;
  object: string;
  created: number;
  model: string;
}

export const defaultEnvelope: Envelope = { id: 'chatcmpl-fixture0001', object: 'chat.completion.chunk', created: FIXTURE_CREATED, model: 'iari-echo-1' };

export type Payload = Record<string, unknown>;

export interface ChunkOptions {
  index?: number;
  finish?: string | null;
  usage?: 'null' | 'absent';
  envelope?: Partial<Envelope>;
}

export function chunk(delta: Payload, options: ChunkOptions = {}): Payload {
  const out: Payload = {
    ...defaultEnvelope,
    ...options.envelope,
    choices: [{ index: options.index ?? 0, delta, logprobs: null, finish_reason: options.finish ?? null }],
  };
  if (options.usage === 'null') out['usage'] = null;
  return out;
}

export function usageChunk(prompt: number, completion: number, envelope: Partial<Envelope> = {}): Payload {
  return { ...defaultEnvelope, ...envelope, choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } };
}

export function toolStart(index: number, id: string, name: string, args = ''): Payload {
  return { index, id, type: 'function', function: { name, arguments: args } };
}

export function toolArgs(index: number, args: string): Payload {
  return { index, function: { arguments: args } };
}

/** A plain text completion: role prelude, the pieces, an empty finish chunk. */
export function textCompletion(pieces: readonly string[], options: { index?: number; usage?: 'null' | 'absent'; finish?: string } = {}): Payload[] {
  const o = { index: options.index ?? 0, ...(options.usage === undefined ? {} : { usage: options.usage }) };
  return [
    chunk({ role: 'assistant', content: '' }, o),
    ...pieces.map((p) => chunk({ content: p }, o)),
    chunk({}, { ...o, finish: options.finish ?? 'stop' }),
  ];
}

export interface FrameOptions {
  eol?: '\n' | '\r\n' | '\r';
  /** Write `data:` without the space (default false). */
  noSpace?: boolean;
  bom?: boolean;
  /** Comment lines inserted before every event (keep-alives). */
  comment?: string;
  /** Append `data: [DONE]` (default true). */
  done?: boolean;
}

export type Event = Payload | string | { raw: string };

/** Frame events as SSE: objects as JSON data, strings as literal data, `{raw}` as raw bytes. */
export function frame(events: readonly Event[], options: FrameOptions = {}): string {
  const eol = options.eol ?? '\n';
  const prefix = options.noSpace === true ? 'data:' : 'data: ';
  let out = options.bom === true ? '\uFEFF' : '';
  const all: Event[] = [...events];
  if (options.done !== false) all.push('[DONE]');
  for (const ev of all) {
    if (options.comment !== undefined) out += `:${options.comment}${eol}`;
    if (typeof ev === 'object' && 'raw' in ev && typeof ev.raw === 'string') {
      out += ev.raw;
      continue;
    }
    const data = typeof ev === 'string' ? ev : JSON.stringify(ev);
    out += data
      .split('\n')
      .map((line) => prefix + line + eol)
      .join('');
    out += eol;
  }
  return out;
}
