import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openRun } from './conformance.ts';
import { validateTestOptions } from './test-options.ts';
import { DEFAULT_PACE_PER_SECOND } from '../checks/rate-limits/pace.ts';
import { isHarnessError } from '../errors.ts';

// iari test --pace R/s: the default is the limit /v1/me reports, else DEFAULT_PACE_PER_SECOND.

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  server = undefined;
});

async function serveMe(body: unknown): Promise<string> {
  server = createServer((req, res) => {
    // /v1/models too: a path where nothing else is served is refused before the run (api-path.ts).
    const served = req.url === '/v1/me' ? body : req.url === '/v1/models' ? { object: 'list', data: [{ id: 'm', object: 'model', created: 0, owned_by: 'iari' }] } : undefined;
    res.writeHead(served === undefined ? 404 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(served ?? { error: { message: 'not here', type: 'invalid_request_error', param: null, code: null } }));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}/v1`;
}

const token = 'iari-pace-test-token-0123456789';

describe('iari test --pace', () => {
  it('paces a server whose /v1/me reports no requests_per_minute at the default rate, and says so', async () => {
    const baseUrl = await serveMe({ user: { id: 'u' } });
    const notices: string[] = [];
    const r = await openRun(validateTestOptions({ baseUrl, token }), { notice: (l) => notices.push(l) });
    await r.close();
    expect(r.settings.pacePerSecond).toBe(DEFAULT_PACE_PER_SECOND);
    expect(r.settings.requestsPerMinute).toBeUndefined();
    expect(notices.join('\n')).toMatch(/reports no requests_per_minute: pacing requests at 10\/s/);
  });

  it('throttles to the limit /v1/me reports when there is one', async () => {
    const baseUrl = await serveMe({ limits: { requests_per_minute: 120 } });
    const r = await openRun(validateTestOptions({ baseUrl, token }));
    await r.close();
    expect(r.settings.requestsPerMinute).toBe(120);
    expect(r.settings.pacePerSecond).toBeUndefined();
  });

  it('--pace wins over the limit /v1/me reports', async () => {
    const baseUrl = await serveMe({ limits: { requests_per_minute: 120 } });
    const r = await openRun(validateTestOptions({ baseUrl, token, pacePerSecond: 0.5 }));
    await r.close();
    expect(r.settings.pacePerSecond).toBe(0.5);
    expect(r.settings.requestsPerMinute).toBeUndefined();
  });

  it('refuses a pace that is not a positive rate up to 1000/s as a usage error (exit 2)', () => {
    for (const bad of [0, -1, Number.NaN, 5000]) {
      const error = (() => {
        try {
          validateTestOptions({ pacePerSecond: bad });
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(isHarnessError(error) && error.exitCode, String(bad)).toBe(2);
    }
  });
});
