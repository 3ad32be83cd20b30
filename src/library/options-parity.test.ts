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
import { CLI_LOAD_NAMES, OPTION_FLAGS, planFromFlags } from '../cli/load-flags.ts';
import { validateLoadOptions } from '../load/plan/load-options.ts';
import { RUN_LOAD_NAMES } from '../load/plan/load-option-names.ts';

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

describe('--expect (capability model)', () => {
  it('CHAT-034: iari test and runConformance refuse an unknown capability before any traffic, and accept a known one', async () => {
    const report = mkdtempSync(join(tmp, 'r-'));
    process.env['IARI_PARITY_TOKEN'] = 'sk-parity-0123456789';
    const cli = (caps: string) => testCommand(['--base-url', `${counterOrigin}/v1`, '--token-env', 'IARI_PARITY_TOKEN', '--expect', caps, '--report', report, '--json']);
    expect(await outcome(cli('json-object,json-mode'))).toBe('IARI_USAGE');
    expect(await outcome(runConformance({ baseUrl: `${counterOrigin}/v1`, token: 'sk-parity-0123456789', expect: ['structured-outputs'] }))).toBe('IARI_USAGE');
    expect(counted).toBe(0);
    const r = await runConformance({ baseUrl: mock.origin, token: mock.tokens.default, only: ['CHAT-034'], expect: ['json-object'] });
    expect(r.report.capabilities?.find((c) => c.name === 'json-object')).toMatchObject({ status: 'honoured', expected: true, outcome: 'judged' });
    expect(r.report.results.find((x) => x.id === 'CHAT-034')?.verdict).toBe('pass');
  }, 120_000);
});

describe('runLoad takes every iari load option', () => {
  it('LOAD-LIBRARY: every iari load flag is a runLoad option or listed as CLI-only with its reason', async () => {
    const { loadFlagSpec, OPTION_FLAGS, CLI_ONLY_FLAGS } = await import('../cli/load-flags.ts');
    const offered = new Set<string>(Object.values(OPTION_FLAGS));
    const missing = Object.keys(loadFlagSpec).filter((f) => !offered.has(f) && !(f in CLI_ONLY_FLAGS));
    expect(missing).toEqual([]);
  });

  it('LOAD-LIBRARY: runLoad and iari load refuse the same trace, ramp and workload values before any traffic', async () => {
    const bad = join(tmp, 'bad-trace.jsonl');
    (await import('node:fs')).writeFileSync(bad, '{"timestamp":1,"input_length":5,"output_length":2}\nnot json\n');
    process.env['IARI_PARITY_TOKEN'] = 'sk-parity-0123456789';
    const base = `${counterOrigin}/v1`;
    const cases: [string[], Parameters<typeof runLoad>[0]][] = [
      [['--trace', bad], { trace: bad }],
      [['--trace', bad, '--rate', '3'], { trace: bad, rate: 3 }],
      [['--rate', '3', '--ramp', '2s', '--ramp-shape', 'step'], { rate: 3, ramp: '2s', rampShape: 'step' as 'linear' }],
      [['--concurrency', '2', '--ramp', '2s'], { concurrency: 2, ramp: '2s' }],
      [['--rate', '3', '--burstiness', '2'], { rate: 3, burstiness: 2 }],
      [['--input-tokens', 'many'], { inputTokens: 'many' }],
      [['--turns', '3', '--prefix-groups', '2'], { turns: '3', prefixGroups: 2 }],
    ];
    for (const [flags, options] of cases) {
      const report = mkdtempSync(join(tmp, 'r-'));
      const cli = await outcome(loadCommand(['--base-url', base, '--token-env', 'IARI_PARITY_TOKEN', '--model', 'm', '--report', report, '--quiet', ...flags]));
      const lib = await outcome(runLoad({ baseUrl: base, token: 'sk-parity-0123456789', model: 'm', ...options }));
      expect(cli, flags.join(' ')).not.toBe('accepted');
      expect(lib, flags.join(' ')).toBe(cli);
    }
    expect(counted).toBe(0);
  }, 60_000);

  it('LOAD-LIBRARY: runLoad replays a trace, ramps an open loop and shapes the workload as the CLI does', async () => {
    const trace = join(tmp, 'trace.jsonl');
    (await import('node:fs')).writeFileSync(trace, [0, 100, 200, 300].map((t, i) => JSON.stringify({ timestamp: t, input_length: 600, output_length: 3, hash_ids: [1, 10 + i] })).join('\n'));
    const replay = await runLoad({ trace, traceSpeed: 2, baseUrl: mock.origin, token: mock.tokens.default });
    expect(replay.result.meta.mode).toMatchObject({ kind: 'open', arrival: 'trace', trace: { kept: 4, speed: 2 } });
    expect(replay.records.map((r) => r.requested)).toEqual([0, 1, 2, 3].map(() => ({ prompt: 600, output: 3 })));
    const ramped = await runLoad({ rate: 20, ramp: '500ms', rampShape: 'exponential', duration: '1s', inputTokens: '30', outputTokens: '3', baseUrl: mock.origin, token: mock.tokens.default });
    expect(ramped.result.meta.mode).toMatchObject({ kind: 'open', ramp: { durationS: 0.5, shape: 'exponential' } });
    expect(ramped.records.every((r) => r.requested?.prompt === 30 && r.requested.output === 3)).toBe(true);
  }, 60_000);
});

describe('runLoad takes the connection options of iari load', () => {
  it('LOAD-LIBRARY: iari load and runLoad refuse the same headers and CA files before any traffic, with the same codes', async () => {
    process.env['IARI_PARITY_TOKEN'] = 'sk-parity-0123456789';
    const notPem = join(tmp, 'not-a-ca.pem');
    (await import('node:fs')).writeFileSync(notPem, 'hello\n');
    const base = `${counterOrigin}/v1`;
    const cases: [string, string[], Parameters<typeof runLoad>[0]][] = [
      ['a header value with CR/LF', ['--header', 'X-Gateway: a\r\nInjected: 1'], { headers: { 'X-Gateway': 'a\r\nInjected: 1' } }],
      ['a header value with NUL', ['--header', 'X-Gateway: a\u0000b'], { headers: { 'X-Gateway': 'a\u0000b' } }],
      ['a header iari sets itself', ['--header', 'Authorization: Bearer other-key'], { headers: { Authorization: 'Bearer other-key' } }],
      ['a header that frames the body', ['--header', 'Content-Length: 5'], { headers: { 'Content-Length': '5' } }],
      ['a name that is no HTTP token', ['--header', 'Bad Name: v'], { headers: { 'Bad Name': 'v' } }],
      ['an empty value', ['--header', 'X-Gateway:'], { headers: { 'X-Gateway': '' } }],
      ['a header given twice in another case', ['--header', 'X-Org: one-value', '--header', 'x-org: two-value'], { headers: { 'X-Org': 'one-value', 'x-org': 'two-value' } }],
      ['a missing CA file', ['--ca-file', join(tmp, 'missing-ca.pem')], { caFile: join(tmp, 'missing-ca.pem') }],
      ['a CA file with no PEM certificate', ['--ca-file', notPem], { caFile: notPem }],
      ['a CA file and insecure together', ['--ca-file', notPem, '--insecure'], { caFile: notPem, insecure: true }],
    ];
    const seen: Record<string, [string, string]> = {};
    for (const [name, flags, options] of cases) {
      const report = mkdtempSync(join(tmp, 'r-'));
      const cli = await outcome(loadCommand(['--base-url', base, '--token-env', 'IARI_PARITY_TOKEN', '--model', 'm', '--requests', '1', '--report', report, '--quiet', ...flags]));
      const lib = await outcome(runLoad({ baseUrl: base, token: 'sk-parity-0123456789', model: 'm', requests: 1, ...options }));
      seen[name] = [cli, lib];
    }
    expect(seen).toEqual({
      'a header value with CR/LF': ['IARI_CONFIG_INVALID', 'IARI_CONFIG_INVALID'],
      'a header value with NUL': ['IARI_CONFIG_INVALID', 'IARI_CONFIG_INVALID'],
      'a header iari sets itself': ['IARI_USAGE', 'IARI_USAGE'],
      'a header that frames the body': ['IARI_USAGE', 'IARI_USAGE'],
      'a name that is no HTTP token': ['IARI_USAGE', 'IARI_USAGE'],
      'an empty value': ['IARI_USAGE', 'IARI_USAGE'],
      'a header given twice in another case': ['IARI_USAGE', 'IARI_USAGE'],
      'a missing CA file': ['IARI_INPUT_UNREADABLE', 'IARI_INPUT_UNREADABLE'],
      'a CA file with no PEM certificate': ['IARI_INPUT_UNREADABLE', 'IARI_INPUT_UNREADABLE'],
      'a CA file and insecure together': ['IARI_USAGE', 'IARI_USAGE'],
    });
    // Without a server of their own (the bundled mock is plain http) both refuse them too.
    expect(await outcome(runLoad({ requests: 1, headers: { 'X-Gateway': 'org-1' } }))).toBe('IARI_USAGE');
    expect(await outcome(loadCommand(['--requests', '1', '--header', 'X-Gateway: org-1', '--report', mkdtempSync(join(tmp, 'r-')), '--quiet']))).toBe('IARI_USAGE');
    expect(counted).toBe(0);
  }, 60_000);

  it('LOAD-LIBRARY: iari load and runLoad accept the same header and send it with every request, the model choice included', async () => {
    const got: { path: string; org: string | undefined }[] = [];
    const recorder = createServer((req, res) => {
      got.push({ path: new URL(req.url ?? '/', 'http://x').pathname, org: req.headers['x-gateway-org'] as string | undefined });
      req.resume();
      if (req.url?.endsWith('/models') === true) res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[{"id":"m"}]}');
      else res.writeHead(503).end();
    });
    await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}/v1`;
    try {
      process.env['IARI_PARITY_TOKEN'] = 'sk-parity-0123456789';
      const cli = await outcome(loadCommand(['--base-url', base, '--token-env', 'IARI_PARITY_TOKEN', '--requests', '1', '--concurrency', '1', '--header', 'X-Gateway-Org: org-42', '--report', mkdtempSync(join(tmp, 'r-')), '--quiet']));
      const byCli = got.splice(0);
      const lib = await outcome(runLoad({ baseUrl: base, token: 'sk-parity-0123456789', requests: 1, concurrency: 1, headers: { 'X-Gateway-Org': 'org-42' } }));
      expect([cli, lib]).toEqual(['accepted', 'accepted']);
      for (const sent of [byCli, got]) {
        expect(sent.some((r) => r.path === '/v1/models')).toBe(true);
        expect(sent.some((r) => r.path === '/v1/chat/completions')).toBe(true);
        expect(sent.filter((r) => r.org !== 'org-42')).toEqual([]);
      }
    } finally {
      await new Promise<void>((resolve) => recorder.close(() => resolve()));
    }
  }, 60_000);
});


describe('runLoad and iari load: one typed validator (validateLoadOptions)', () => {
  /** The refusal's code and message, or 'accepted'. */
  async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string } | 'accepted'> {
    try {
      await p;
      return 'accepted';
    } catch (error) {
      if (isHarnessError(error)) return { code: error.code, message: error.message };
      throw error;
    }
  }

  it('LOAD-LIBRARY: runLoad refuses what iari load refuses, with the same words, naming the option where the CLI names its flag', async () => {
    process.env['IARI_PARITY_TOKEN'] = 'sk-parity-0123456789';
    const base = `${counterOrigin}/v1`;
    const cases: [string[], Parameters<typeof runLoad>[0], (keyof typeof OPTION_FLAGS)[]][] = [
      [['--rate', '0'], { rate: 0 }, ['rate']],
      [['--concurrency', '2.5'], { concurrency: 2.5 }, ['concurrency']],
      [['--requests', '1', '--concurrency', '2', '--rate', '3'], { concurrency: 2, rate: 3 }, ['concurrency', 'rate']],
      [['--duration', '10sec'], { duration: '10sec' }, ['duration']],
      [['--request-timeout', '2h'], { requestTimeout: '2h' }, ['requestTimeout']],
      [['--prefix-groups', '2'], { prefixGroups: 2 }, ['prefixGroups', 'prefixTokens']],
      [['--tools', 'builtin', '--tool-share', '0'], { tools: 'builtin', toolShare: 0 }, ['toolShare']],
      [['--shard', '4/4'], { shard: '4/4' }, ['shard']],
      [['--turns', 'x'], { turns: 'x' }, ['turns']],
      [['--embeddings-batch', '4', '--turns', '2'], { embeddingsBatch: 4, turns: '2' }, ['turns', 'embeddingsBatch', 'inputTokens', 'dataset', 'prompts']],
      [['--embeddings-batch', '4', '--slo', 'ttft.p95<1s'], { embeddingsBatch: 4, slo: ['ttft.p95<1s'] }, ['slo', 'embeddingsBatch']],
      [['--embeddings-format', 'base64'], { embeddingsFormat: 'base64' }, ['embeddingsFormat', 'embeddingsBatch']],
      [['--embeddings-batch', '4096'], { embeddingsBatch: 4096 }, ['embeddingsBatch']],
      [['--api', 'responses', '--embeddings-batch', '4'], { api: 'responses', embeddingsBatch: 4 }, ['embeddingsBatch', 'api']],
      [['--api', 'Chat Completions'], { api: 'Chat Completions' }, ['api']],
      [['--chain', 'previous-response-id'], { chain: 'previous-response-id' }, ['chain', 'turns']],
      [['--turns', '2', '--chain', 'previous_response_id'], { turns: '2', chain: 'previous_response_id' as 'resend' }, ['chain']],
      [['--slo', 'embeddings.inputs_per_s>=10'], { slo: ['embeddings.inputs_per_s>=10'] }, ['slo', 'embeddingsBatch']],
    ];
    for (const [flags, options, named] of cases) {
      const cli = await refusal(loadCommand(['--base-url', base, '--token-env', 'IARI_PARITY_TOKEN', '--model', 'm', '--requests', '1', '--report', mkdtempSync(join(tmp, 'r-')), '--quiet', ...flags]));
      const lib = await refusal(runLoad({ baseUrl: base, token: 'sk-parity-0123456789', model: 'm', requests: 1, ...options }));
      expect(cli, flags.join(' ')).not.toBe('accepted');
      expect(lib, flags.join(' ')).not.toBe('accepted');
      if (cli === 'accepted' || lib === 'accepted') continue;
      expect(lib.code, flags.join(' ')).toBe(cli.code);
      expect(cli.message.startsWith('iari load: '), cli.message).toBe(true);
      let expected = cli.message.replace(/^iari load: /, 'runLoad: ');
      for (const option of named) expected = expected.replaceAll(`--${OPTION_FLAGS[option]}`, option);
      expect(lib.message, flags.join(' ')).toBe(expected);
      expect(lib.message).not.toContain('--');
    }
    expect(counted).toBe(0);
  }, 60_000);

  it('LOAD-LIBRARY: runLoad takes typed values, never their text: a number given as text, a duration as a number or a non-boolean stream is refused before any traffic', async () => {
    const base = `${counterOrigin}/v1`;
    const typedWrong: [string, Parameters<typeof runLoad>[0]][] = [
      ['rate', { rate: '5' as unknown as number }],
      ['concurrency', { concurrency: '2' as unknown as number }],
      ['duration', { duration: 1 as unknown as string }],
      ['stream', { stream: 'no' as unknown as boolean }],
    ];
    for (const [option, options] of typedWrong) {
      const lib = await refusal(runLoad({ baseUrl: base, token: 'sk-parity-0123456789', model: 'm', requests: 1, ...options }));
      expect(lib, option).toMatchObject({ code: 'IARI_USAGE', message: expect.stringMatching(new RegExp(`^runLoad: ${option} must be`)) });
    }
    expect(counted).toBe(0);
  }, 60_000);

  it('LOAD-LIBRARY: the same options give iari load and runLoad the same plan: defaults, deadlines and workload', () => {
    process.env['IARI_PARITY_TOKEN'] = 'sk-parity-0123456789';
    const strip = (p: ReturnType<typeof planFromFlags>) => ({ ...p, prompts: p.prompts.length });
    expect(strip(validateLoadOptions({}, RUN_LOAD_NAMES))).toEqual(strip(planFromFlags({})));
    const cli = planFromFlags({ 'base-url': `${counterOrigin}/v1/`, 'token-env': 'IARI_PARITY_TOKEN', rate: '5', arrival: 'gamma', burstiness: '0.5', duration: '2s', 'request-timeout': '1m30s', warmup: '500ms', 'input-tokens': '30,3', 'prefix-tokens': '16', seed: '9', slo: ['ttft.p95<1s'], 'no-stream': true });
    const lib = validateLoadOptions({ baseUrl: `${counterOrigin}/v1/`, token: 'sk-parity-0123456789', rate: 5, arrival: 'gamma', burstiness: 0.5, duration: '2s', requestTimeout: '1m30s', warmup: '500ms', inputTokens: '30,3', prefixTokens: 16, seed: 9, slo: ['ttft.p95<1s'], stream: false });
    expect(strip(lib)).toEqual(strip(cli));
    expect(cli).toMatchObject({ durationS: 2, requestTimeoutMs: 90_000, timeoutMs: 30_000, warmupS: 0.5, stream: false, seed: 9, mode: { kind: 'open', rate: 5, arrival: 'gamma', burstiness: 0.5 } });
    expect(CLI_LOAD_NAMES.name('requestTimeout')).toBe('--request-timeout');
  });
});
