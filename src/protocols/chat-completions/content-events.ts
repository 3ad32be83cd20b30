import { StringDecoder } from 'node:string_decoder';
import type { OutputTally } from '../protocol.ts';

/**
 * Counts the events of a chat-completions stream that carry generated output (delta.content,
 * delta.reasoning_content or delta.reasoning, delta.tool_calls), fed piece by piece as the body
 * arrives: the lines of an event stream, `data: {json}`; a partial last line waits for the next piece.
 */
export class ContentEvents {
  #rest = '';
  #count = 0;
  /** Characters of generated text seen so far. */
  chars = 0;
  /** performance.now() of the piece that carried the first content event (null: none yet). */
  firstAt: number | null = null;

  get count(): number {
    return this.#count;
  }

  /** Feeds one piece; returns the count of content events so far. */
  feed(piece: string, now = performance.now()): number {
    const lines = (this.#rest + piece).split(/\r\n|\r|\n/);
    this.#rest = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data === '' || data === '[DONE]') continue;
      let json: unknown;
      try {
        json = JSON.parse(data);
      } catch {
        continue;
      }
      const choices = (json as { choices?: unknown }).choices;
      if (!Array.isArray(choices)) continue;
      let carried = false;
      for (const c of choices) {
        const delta = (c as { delta?: Record<string, unknown> } | null)?.delta;
        if (delta === undefined || delta === null || typeof delta !== 'object') continue;
        for (const key of ['content', 'reasoning_content', 'reasoning']) {
          const v = delta[key];
          if (typeof v === 'string' && v.length > 0) {
            carried = true;
            this.chars += v.length;
          }
        }
        if (Array.isArray(delta['tool_calls']) && delta['tool_calls'].length > 0) carried = true;
      }
      if (carried) {
        this.#count++;
        this.firstAt ??= now;
      }
    }
    return this.#count;
  }
}

/**
 * The output events of one streamed answer as its reads arrive (where --cancel-after Ntokens cuts):
 * servers stream one token per event (the mock, llama.cpp's, vLLM's), so N tokens is N events.
 */
export function chatOutputTally(): OutputTally {
  const events = new ContentEvents();
  const decoder = new StringDecoder('utf8');
  return { feed: (chunk) => events.feed(decoder.write(chunk as Buffer)) };
}
