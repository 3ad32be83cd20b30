// Helpers for the mock server's own tests: an authenticated fetch, an SSE splitter that follows
// the WHATWG rules, and an in-memory receipt issuer stand-in that records what the core reports.
import { createHash } from 'node:crypto';
import type { GateInput, OutcomeInput, ReceiptIssuer } from '../mock-server/receipt-hooks.ts';
import { startMockServer, type MockServer, type MockServerOptions } from '../mock-server/index.ts';
import { CHAT_COMPLETIONS_ROUTE } from '../src/protocols/chat-completions/chat-request.ts';

export interface Client {
  server: MockServer;
  get(path: string, token?: string | null, headers?: Record<string, string>): Promise<Response>;
  chat(body: unknown, options?: { token?: string | null | undefined; headers?: Record<string, string>; signal?: AbortSignal }): Promise<Response>;
  close(): Promise<void>;
}

export async function startClient(options: MockServerOptions = {}): Promise<Client> {
  const server = await startMockServer({ receipts: false, ...options });
  const auth = (token: string | null | undefined): Record<string, string> =>
    token === null ? {} : { authorization: `Bearer ${token ?? server.tokens.default}` };
  return {
    server,
    get: (path, token, headers = {}) => fetch(`${server.url}${path}`, { headers: { ...auth(token), ...headers } }),
    chat: (body, o = {}) =>
      fetch(`${server.url}${CHAT_COMPLETIONS_ROUTE}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth(o.token), ...o.headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
        ...(o.signal === undefined ? {} : { signal: o.signal }),
      }),
    close: () => server.close(),
  };
}

/** WHATWG SSE: lines end in CRLF, LF or CR; ":" starts a comment; one space after "data:" is dropped. */
export function parseSse(text: string): string[] {
  const events: string[] = [];
  let data: string[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data.length > 0) events.push(data.join('\n'));
      data = [];
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
  }
  return events;
}

export type Chunk = Record<string, any>;

export function chunksOf(events: string[]): Chunk[] {
  return events.filter((e) => e !== '[DONE]').map((e) => JSON.parse(e) as Chunk);
}

export const userMessage = (content = 'Say something.') => ({ role: 'user', content });

export function chat(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'iari-mini', messages: [userMessage()], ...extra };
}

export const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7 }, unit: { type: 'string', enum: ['c', 'f'] } },
      required: ['city', 'days', 'unit'],
      additionalProperties: false,
    },
  },
};

/** A stand-in for the receipt issuer: records every gate and outcome, digests are sha256 of the input. */
export class RecordingIssuer implements ReceiptIssuer {
  readonly gates: GateInput[] = [];
  readonly outcomes: OutcomeInput[] = [];

  gate(input: GateInput): { gateDigest: string } {
    this.gates.push(input);
    return { gateDigest: `sha256:${createHash('sha256').update(`${input.requestId}|${this.gates.length}`).digest('hex')}` };
  }

  outcome(input: OutcomeInput): void {
    this.outcomes.push(input);
  }

  chain(account: string) {
    return { mandate: { id: `mandate:${account}`, grant_id: `grant:${account}`, actor: 'did:key:z6Mk-test' }, head: null, data: [...this.gates.filter((g) => g.account === account)] };
  }

  keys() {
    return { object: 'receipt_keys' as const, service_id: 'test', keys: [{ kid: 'did:key:z6Mk-test', alg: 'Ed25519' as const, use: 'issuer' as const }] };
  }
}

export async function waitFor(predicate: () => boolean, timeoutMs = 2_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
