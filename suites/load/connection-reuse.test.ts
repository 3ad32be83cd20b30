import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import { runLoadConfig, type LoadConfig, type ModeConfig } from '../../src/load/run-load.ts';
import { serverLoadConfig, startLoadMock } from './load-fixtures.ts';
import { startClosingFront, type ClosingFront, type CloseMode } from './closing-front.ts';

// A server that says keep-alive and closes after each answer, as llama.cpp's server does
// (docs/load.md, "Connections a server closes after an answer"): a request written on such a
// connection is a connection reuse race, sent once more on a fresh connection and counted on its
// own, never a server error; a server that closes fresh connections still fails every request.
// A distinct prompt per request, so each body on the wire names its request.
const prompts = Array.from({ length: 64 }, (_, k) => [{ role: 'user' as const, content: `question number ${k}` }]);
const REQUESTS = 12;

const modes: [string, ModeConfig][] = [
  ['closed loop, autocannon', { kind: 'closed', concurrency: 2, engine: 'autocannon' }],
  ['closed loop, undici', { kind: 'closed', concurrency: 2, engine: 'undici' }],
  ['open loop', { kind: 'open', rate: 20, arrival: 'constant' }],
];

describe('connections a server closes after an answer', () => {
  let mock: MockServer;
  beforeAll(async () => {
    mock = await startLoadMock({ ttftMs: 5, itlMs: 2, completionTokens: 6 });
  });
  afterAll(() => mock.close());

  const run = async (mode: CloseMode, loop: ModeConfig, over: Partial<LoadConfig> = {}) => {
    const front = await startClosingFront(Number(new URL(mock.origin).port), mode);
    try {
      const server = { baseUrl: `${front.url}/v1`, token: mock.tokens.default, model: mock.admin.models().available[0] ?? 'unknown', target: 'external' as const };
      const { result, records } = await runLoadConfig(serverLoadConfig(server, loop, { checkIn: 'in-process', durationS: null, requests: REQUESTS, prime: false, prompts, ...over }));
      return { result, records, front: snapshot(front) };
    } finally {
      await front.close();
    }
  };

  for (const [name, loop] of modes) {
    it(`${name}: a server that closes each kept-alive connection under the next request fails no request; every race is counted, sent again with its own body on a fresh connection, and timed from its first send`, async () => {
      const { result, records, front } = await run('on-next-request', loop);
      expect(result.counts).toMatchObject({ finished: REQUESTS, ok: REQUESTS, failed: 0 });
      const reuse = result.connectionReuse;
      expect(reuse?.policy).toBe('reuse');
      expect(reuse?.races).toBeGreaterThan(0);
      // Every request the server dropped was a race, and every race was answered on its retry.
      expect(reuse?.races).toBe(front.dropped);
      expect(reuse?.retried).toEqual({ ok: front.dropped, failed: 0, abortedAtEnd: 0 });
      // The retry carries the raced request's body; no request is answered twice.
      expect(new Set(front.forwardedBodies).size).toBe(REQUESTS);
      expect(front.forwardedBodies).toHaveLength(REQUESTS);
      for (const body of front.droppedBodies) expect(front.forwardedBodies).toContain(body);
      // Each raced request: one line, its retry after its send, its latencies from the first send (the race is in them).
      const raced = records.filter((r) => r.retriedUs !== undefined);
      expect(raced).toHaveLength(front.dropped);
      for (const r of raced) {
        expect(r.retriedUs!).toBeGreaterThanOrEqual(r.sentUs);
        expect(r.ttftUs!).toBeGreaterThan(r.retriedUs! - r.intendedUs);
        expect(r.e2eUs!).toBeGreaterThan(r.ttftUs!);
      }
    });
  }

  it('both engines: llama.cpp\'s own timing (the connection closed right after each answer) fails no request', async () => {
    for (const engine of ['autocannon', 'undici'] as const) {
      const { result } = await run('after-answer', { kind: 'closed', concurrency: 2, engine });
      expect(result.counts, engine).toMatchObject({ finished: REQUESTS, ok: REQUESTS, failed: 0 });
      expect(result.connectionReuse?.retried, engine).toEqual({ ok: result.connectionReuse?.races, failed: 0, abortedAtEnd: 0 });
    }
  });

  it('--connection-reuse never: a new connection per request, no race, no failure (both engines)', async () => {
    for (const engine of ['autocannon', 'undici'] as const) {
      const { result, front } = await run('on-next-request', { kind: 'closed', concurrency: 2, engine }, { connectionReuse: 'never' });
      expect(result.counts, engine).toMatchObject({ finished: REQUESTS, ok: REQUESTS, failed: 0 });
      expect(result.connectionReuse, engine).toEqual({ policy: 'never', races: 0, retried: { ok: 0, failed: 0, abortedAtEnd: 0 } });
      expect(front.dropped, engine).toBe(0);
      expect(front.connections, engine).toBe(REQUESTS);
    }
  });

  it('a server that closes every FRESH connection before answering still fails every request as reset: no race, no retry (both engines)', async () => {
    for (const engine of ['autocannon', 'undici'] as const) {
      const { result, records, front } = await run('fresh', { kind: 'closed', concurrency: 2, engine });
      expect(result.counts.ok, engine).toBe(0);
      expect(result.counts.failed, engine).toBeGreaterThan(0);
      expect(result.errors.byClass.reset, engine).toBe(result.counts.failed);
      expect(result.connectionReuse, engine).toEqual({ policy: 'reuse', races: 0, retried: { ok: 0, failed: 0, abortedAtEnd: 0 } });
      expect(records.filter((r) => r.retriedUs !== undefined), engine).toEqual([]);
      // Each connection carried one request, sent once.
      expect(front.dropped, engine).toBe(front.connections);
    }
  });
});

function snapshot(f: ClosingFront): { connections: number; dropped: number; droppedBodies: string[]; forwardedBodies: string[] } {
  return { connections: f.connections, dropped: f.dropped, droppedBodies: [...f.droppedBodies], forwardedBodies: [...f.forwardedBodies] };
}
