import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpCore, type CoreRequest } from './http-core.ts';

// A server that closes a kept-alive connection after its answer, as llama.cpp's server does after a
// stream (research, llama-server-2026-11.md): the next POST written on that connection dies before
// any byte of its answer. `iari test` names that a connection reuse race in the evidence.

const ANSWER = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nkeep-alive: timeout=5, max=100\r\n\r\n{}';
let server: Server | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  server = undefined;
  agent = undefined;
});

/** Answers the first `answered` requests of each connection, then closes it when the next one arrives, answering nothing. */
async function start(answered: number): Promise<string> {
  server = createServer((socket: Socket) => {
    let seen = 0;
    socket.on('data', (chunk: Buffer) => {
      // One request per chunk is enough here: a small POST arrives whole on loopback.
      if (!chunk.toString('latin1').includes('HTTP/1.1')) return;
      if (seen++ < answered) socket.write(ANSWER);
      else socket.destroy();
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

function post(root: string, extra: Partial<CoreRequest> = {}): CoreRequest {
  return { method: 'POST', url: `${root}/v1/chat/completions`, headers: { 'content-type': 'application/json' }, body: '{"model":"m","messages":[]}', deadlineMs: 5_000, ...extra };
}

describe('HttpCore: a request the server closes a kept-alive connection under', () => {
  it('HDR-017: a POST written on a reused connection that closes before any byte is named a connection reuse race, not sent again', async () => {
    const root = await start(1);
    agent = new Agent({ connections: 1 });
    const core = new HttpCore(agent);
    const first = await core.send(post(root));
    expect(first.kind).toBe('answered');
    const second = await core.send(post(root));
    expect(second.kind).toBe('failed');
    if (second.kind !== 'failed') return;
    expect(second.ended.cause).toBe('reset');
    expect(second.ended.message).toMatch(/^connection reuse race: the request was written on a kept-alive connection \(\d+ bytes of earlier answers read on it\) that the server closed before any byte of this answer \(other side closed\); not sent again: POST is not idempotent/);
  });

  it('a fresh connection closed before any byte stays the bare socket error: no earlier answer, no race', async () => {
    const root = await start(0);
    agent = new Agent({ connections: 1 });
    const result = await new HttpCore(agent).send(post(root));
    expect(result.kind).toBe('failed');
    if (result.kind !== 'failed') return;
    expect(result.ended.cause).toBe('reset');
    expect(result.ended.message).not.toMatch(/reuse race/);
    expect(result.ended.message).toMatch(/other side closed/);
  });
});
