/**
 * The per-event view the load engines need of a chat-completions stream: which events carry
 * tokens (content or tool-call text; never the role-only prelude), the server's usage, and
 * whether the stream conforms. Every stream is inspected, not a sample.
 */

export interface StreamVerdict {
  ok: boolean;
  /** Short code of the first finding (e.g. `no-done`, `non-json-data`). */
  finding: string;
  detail: string;
  completionTokens: number | null;
  promptTokens: number | null;
}

/** SSE reader findings that make a stream non-conforming (the others are legal oddities). */
const fatalReaderFindings = new Set(['invalid-utf8', 'ended-mid-event', 'ended-mid-line', 'line-too-long']);

interface ChunkShape {
  id?: unknown;
  object?: unknown;
  choices?: unknown;
  usage?: { completion_tokens?: unknown; prompt_tokens?: unknown } | null;
}

interface DeltaShape {
  content?: unknown;
  tool_calls?: unknown;
}

export class StreamInspector {
  #sawDone = false;
  #id: string | undefined;
  #first: { finding: string; detail: string } | undefined;
  #completion: number | null = null;
  #prompt: number | null = null;
  #events = 0;

  /** Returns the token-bearing text of the event, or null when it carries no tokens. */
  onData(data: string): string | null {
    this.#events++;
    // Spec, Streamed chunk: "The final event is the literal string [DONE], not JSON."
    if (this.#sawDone) {
      this.#flag('data-after-done', `event ${this.#events} arrived after [DONE]`);
      return null;
    }
    if (data === '[DONE]') {
      this.#sawDone = true;
      return null;
    }
    let chunk: ChunkShape;
    try {
      chunk = JSON.parse(data) as ChunkShape;
    } catch {
      this.#flag('non-json-data', `event ${this.#events} is not JSON`);
      return null;
    }
    if (chunk === null || typeof chunk !== 'object' || Array.isArray(chunk)) {
      this.#flag('non-object-chunk', `event ${this.#events} is not a JSON object`);
      return null;
    }
    if (chunk.object !== 'chat.completion.chunk') this.#flag('wrong-object', `event ${this.#events} has object ${JSON.stringify(chunk.object)}`);
    if (typeof chunk.id !== 'string') this.#flag('missing-id', `event ${this.#events} has no string id`);
    else if (this.#id === undefined) this.#id = chunk.id;
    else if (this.#id !== chunk.id) this.#flag('id-changed', `event ${this.#events} changed id`);
    const usage = chunk.usage;
    if (usage !== undefined && usage !== null) {
      if (typeof usage.completion_tokens === 'number') this.#completion = usage.completion_tokens;
      if (typeof usage.prompt_tokens === 'number') this.#prompt = usage.prompt_tokens;
    }
    if (!Array.isArray(chunk.choices)) {
      this.#flag('missing-choices', `event ${this.#events} has no choices array`);
      return null;
    }
    const choice = chunk.choices[0] as { delta?: DeltaShape } | undefined;
    // A usage-only chunk has an empty choices array.
    if (choice === undefined) return null;
    const delta = choice.delta;
    if (delta === undefined || delta === null || typeof delta !== 'object') {
      this.#flag('missing-delta', `event ${this.#events} has no delta`);
      return null;
    }
    // Spec, Streamed chunk: "The text fragment is at choices[0].delta.content and may be absent."
    let text = '';
    if (typeof delta.content === 'string') text = delta.content;
    else if (delta.content !== undefined && delta.content !== null) this.#flag('content-not-string', `event ${this.#events} has non-string content`);
    if (Array.isArray(delta.tool_calls)) {
      for (const call of delta.tool_calls as { index?: unknown; function?: { name?: unknown; arguments?: unknown } }[]) {
        if (typeof call?.index !== 'number') this.#flag('tool-call-no-index', `event ${this.#events} has a tool-call delta without index`);
        const name = call?.function?.name;
        const args = call?.function?.arguments;
        text += (typeof name === 'string' ? name : '') + (typeof args === 'string' ? args : '');
        if (text === '') text = ' ';
      }
    }
    return text === '' ? null : text;
  }

  end(readerFindings: readonly string[]): StreamVerdict {
    for (const code of readerFindings) if (fatalReaderFindings.has(code)) this.#flag(code, `SSE framing: ${code}`);
    if (!this.#sawDone) this.#flag('no-done', 'stream ended without data: [DONE]');
    const first = this.#first;
    return {
      ok: first === undefined,
      finding: first?.finding ?? '',
      detail: first?.detail ?? '',
      completionTokens: this.#completion,
      promptTokens: this.#prompt,
    };
  }

  #flag(finding: string, detail: string): void {
    if (this.#first === undefined) this.#first = { finding, detail };
  }
}
