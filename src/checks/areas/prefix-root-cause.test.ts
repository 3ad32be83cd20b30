/**
 * Issue 27, one root cause and not its cascade: HDR-009 (endpoints live under /v1) fails where an
 * endpoint answers outside /v1 instead; where it is absent everywhere (ME-001's finding) HDR-009
 * is undecided and names that cause.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createCheckContext } from '../context/check-context.ts';
import { runCheck } from '../runner/check-runner.ts';
import { startEndlessServer, type EndlessServer } from '../../../test-support/endless-server-fixtures.ts';
import { headersChecks } from './headers.ts';

let server: EndlessServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function hdr009(bareMe: 200 | 404): Promise<{ verdict: string; reason?: string }> {
  server = await startEndlessServer((req, res) => {
    req.resume();
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/v1/models') return json(200, { object: 'list', data: [{ id: 'm1', object: 'model', created: 1, owned_by: 'x' }] });
    if (req.url === '/me' && bareMe === 200) return json(200, { id: 'u1' });
    json(404, { error: { message: 'not found', type: 'invalid_request_error', param: null, code: 'not_found' } });
  });
  const def = headersChecks.find((c) => c.name === 'headers-v1-prefix');
  if (def === undefined) throw new Error('no headers-v1-prefix check');
  const ctx = createCheckContext({ root: server.root, token: 'sk-test-token-123456', seed: 1, target: 'external', includeLimits: false, requestTimeoutMs: 5_000 });
  const outcomes = await runCheck(def, ctx, () => 'MUST');
  return outcomes.find((o) => o.id === 'HDR-009') as { verdict: string; reason?: string };
}

describe('HDR-009 and its root cause', () => {
  it('HDR-009: /v1/me and /me both 404 (the endpoint is absent) is undecided, naming ME-001, not a FAIL', async () => {
    expect(await hdr009(404)).toMatchObject({ verdict: 'skipped', reason: expect.stringMatching(/^undecided: GET \/v1\/me and GET \/me answered 404 \(the endpoint is absent, ME-001\)/) });
  });

  it('HDR-009: /v1/me 404 while /me answers 200 fails: the endpoint lives outside /v1', async () => {
    expect(await hdr009(200)).toMatchObject({ verdict: 'fail' });
  });
});
