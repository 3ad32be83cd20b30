// One core, thin shells: `iari test`, `iari load`, `runConformance` and `runLoad` accept and refuse
// the same base URLs, tokens and durations, because they validate them with the same code
// (src/client/base-url.ts, src/client/token.ts, src/duration.ts). A refusal comes before any traffic.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run as testCommand } from '../cli/test-command.ts';
import { run as loadCommand } from '../cli/load-command.ts';
import { isHarnessError } from '../errors.ts';
import { startMockServer, type MockServer } from '../../mock-server/index.ts';
import { runConformance } from './conformance.ts';
import { runLoad } from './load.ts';

const tmp = mkdtempSync(join(tmpdir(), 'iari-parity-'));
let mock: MockServer;
let counter: Server;
let counted = 0;
let counterOrigin = '';

beforeAll(async () => {
  mock = await startMockServer({ receipts: false, limits: false });
  counter = createServer((req, res) => {
    counted += 1;
    res.writeHead(503).end();
  });
  await new Promise<void>((resolve) => counter.listen(0, '127.0.0.1', resolve));
  counterOrigin = `http://127.0.0.1:${(counter.address() as AddressInfo).port}`;
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterAll(async () => {
  vi.restoreAllMocks();
  await mock.close();
  await new Promise<void>((resolve) => counter.close(() => resolve()));
  rmSync(tmp, { recursive: true, force: true });
});

type Verdict = 'accepted' | string;

/** 'accepted' when the entry point ran, else the code of the HarnessError it refused with. */
async function outcome(p: Promise<unknown>): Promise<Verdict> {
  try {
    await p;
    return 'accepted';
  } catch (error) {
    if (isHarnessError(error)) return error.code;
    throw error;
  }
}

/** The four entry points, each run as small as it goes: one requirement, one request. */
function entryPoints(baseUrl: string, token: string, duration = '5s'): Record<string, () => Promise<unknown>> {
  process.env['IARI_PARITY_TOKEN'] = token;
  const report = mkdtempSync(join(tmp, 'r-'));
  return {
    'iari test': () => testCommand(['--base-url', baseUrl, '--token-env', 'IARI_PARITY_TOKEN', '--only', 'MODELS-001', '--request-timeout', duration, '--report', report, '--json']),
    'iari load': () => loadCommand(['--base-url', baseUrl, '--token-env', 'IARI_PARITY_TOKEN', '--requests', '1', '--concurrency', '1', '--request-timeout', duration, '--report', report, '--quiet', '--json']),
    runConformance: () => runConformance({ baseUrl, token, only: ['MODELS-001'] }),
    runLoad: () => runLoad({ baseUrl, token, requests: 1, concurrency: 1, requestTimeout: duration }),
  };
}

async function verdicts(baseUrl: string, token: string, duration?: string, only?: readonly string[]): Promise<Record<string, Verdict>> {
  const out: Record<string, Verdict> = {};
  for (const [name, go] of Object.entries(entryPoints(baseUrl, token, duration))) if (only === undefined || only.includes(name)) out[name] = await outcome(go());
  return out;
}

const same = (v: Verdict): Record<string, Verdict> => ({ 'iari test': v, 'iari load': v, runConformance: v, runLoad: v });

describe('one core: the shells agree', () => {
  it('accept the same base URLs: with or without /v1 and a trailing slash', async () => {
    for (const url of [mock.origin, `${mock.origin}/v1/`]) expect(await verdicts(url, mock.tokens.default), url).toEqual(same('accepted'));
  }, 120_000);

  it('refuse the same base URLs before any traffic: credentials, a query, another scheme, not a URL', async () => {
    const host = counterOrigin.replace('http://', '');
    for (const url of [`http://user:pass@${host}/v1`, `${counterOrigin}/v1?key=x`, `ftp://${host}/v1`, 'not a url']) {
      expect(await verdicts(url, 'sk-parity-0123456789'), url).toEqual(same('IARI_CONFIG_INVALID'));
    }
    expect(counted).toBe(0);
  }, 60_000);

  it('refuse the same tokens before any traffic: empty, or too short to keep out of reports', async () => {
    expect(await verdicts(`${counterOrigin}/v1`, '   ')).toEqual(same('IARI_TOKEN_MISSING'));
    expect(await verdicts(`${counterOrigin}/v1`, 'seven77')).toEqual(same('IARI_CONFIG_INVALID'));
    expect(counted).toBe(0);
  }, 60_000);

  it('read the same durations: compounds and hours are accepted, other words refused before any traffic', async () => {
    // runConformance takes its deadlines as numbers of milliseconds, so it has no duration text to read.
    const withText = ['iari test', 'iari load', 'runLoad'];
    const all = (v: Verdict): Record<string, Verdict> => Object.fromEntries(withText.map((n) => [n, v]));
    expect(await verdicts(mock.origin, mock.tokens.default, '1m30s', withText)).toEqual(all('accepted'));
    expect(await verdicts(mock.origin, mock.tokens.default, '1h', withText)).toEqual(all('accepted'));
    expect(await verdicts(`${counterOrigin}/v1`, 'sk-parity-0123456789', '10sec', withText)).toEqual(all('IARI_USAGE'));
    expect(counted).toBe(0);
  }, 120_000);
});
