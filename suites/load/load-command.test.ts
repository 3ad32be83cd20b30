import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { announceLine, run } from '../../src/cli/load-command.ts';
import { planFromFlags } from '../../src/cli/load-flags.ts';
import { isHarnessError } from '../../src/errors.ts';
import type { LoadResult, RequestRecord } from '../../src/load/results/load-result.ts';

async function exitOf(argv: string[]): Promise<number> {
  try {
    return await run(argv);
  } catch (error) {
    if (isHarnessError(error)) return error.exitCode;
    throw error;
  }
}

describe('iari load command', () => {
  let server: Server;
  let hits = 0;
  let base = '';
  let dir: string;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits++;
      res.end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
    dir = mkdtempSync(join(tmpdir(), 'iari-load-cli-'));
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('an unknown SLO metric or a malformed threshold exits 2 before any request is sent', async () => {
    process.env['IARI_LOAD_TEST_TOKEN'] = 'test-token-123456';
    for (const slo of ['latency.p95<800ms', 'ttft.p95<800', 'ttft.p97<1ms', 'errors.rate<2', 'ttft.p95 < fast']) {
      expect(await exitOf(['--base-url', base, '--token-env', 'IARI_LOAD_TEST_TOKEN', '--slo', slo, '--duration', '1s'])).toBe(2);
    }
    expect(hits).toBe(0);
  });

  it('accepts any base URL as a plan, and under the test guard (IARI_LOOPBACK_ONLY=1) refuses one outside loopback with exit 2 before any traffic', async () => {
    process.env['IARI_LOAD_TEST_TOKEN'] = 'test-token-123456';
    expect(process.env['IARI_LOOPBACK_ONLY']).toBe('1');
    for (const url of ['https://api.example.test/v1', 'http://10.0.0.1:8080', 'https://[2001:db8::1]:8443/v1']) {
      expect(planFromFlags({ 'base-url': url, 'token-env': 'IARI_LOAD_TEST_TOKEN' }).baseUrl).toMatch(/\/v1$/);
    }
    for (const url of ['http://10.0.0.1:8080/v1', 'http://[::2]:80/v1', 'http://128.0.0.1/v1']) {
      const error = await run(['--base-url', url, '--token-env', 'IARI_LOAD_TEST_TOKEN']).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'IARI_TARGET_BLOCKED', exitCode: 2 });
    }
  });

  it('announces the target, the mode and the bound before loading a host that is not loopback', () => {
    process.env['IARI_LOAD_TEST_TOKEN'] = 'test-token-123456';
    const plan = (argv: Record<string, string>) => planFromFlags({ 'base-url': 'https://llm.example.test/v1', 'token-env': 'IARI_LOAD_TEST_TOKEN', ...argv });
    expect(announceLine(plan({ rate: '20', arrival: 'poisson', duration: '30s', warmup: '5s' }), 'https://llm.example.test/v1', {})).toBe(
      'iari load: sending load to https://llm.example.test/v1: open loop, 20 requests/s (poisson arrivals), for 5 s warmup + 30 s, then 5 s of grace for requests in flight; ends within 50 s (10 s to choose the model and prime, the run, the grace), then writes its reports; Ctrl-C stops it\n',
    );
    // The defaults with a 5 s run: the pre-window deadline is the run's length (5 s), so 5 + 5 + 5.
    expect(announceLine(plan({ concurrency: '4', duration: '5s' }), 'https://llm.example.test/v1', {})).toBe(
      'iari load: sending load to https://llm.example.test/v1: closed loop, 4 concurrent requests, for 5 s, then 5 s of grace for requests in flight; ends within 15 s (5 s to choose the model and prime, the run, the grace), then writes its reports; Ctrl-C stops it\n',
    );
    expect(announceLine(plan({ requests: '500', concurrency: '16', timeout: '60s' }), 'https://llm.example.test/v1', { HTTPS_PROXY: 'http://u:p@proxy.corp:3128' })).toBe(
      'iari load: sending load to https://llm.example.test/v1 via proxy http://proxy.corp:3128: closed loop, 16 concurrent requests, until 500 measured requests (at most 600 s), then 5 s of grace for requests in flight; ends within 615 s (10 s to choose the model and prime, the run, the grace), then writes its reports; Ctrl-C stops it\n',
    );
  });

  it('rejects contradictory or out-of-range load flags with exit 2', async () => {
    expect(await exitOf(['--rate', '5', '--concurrency', '2'])).toBe(2);
    expect(await exitOf(['--rate', '5', '--arrival', 'bursty'])).toBe(2);
    expect(await exitOf(['--concurrency', '0'])).toBe(2);
    expect(await exitOf(['--duration', 'forever'])).toBe(2);
    expect(await exitOf(['--shard', '4/4'])).toBe(2);
    expect(await exitOf(['--prompts', join(dir, 'missing.jsonl')])).toBe(2);
  });

  it('LOAD-SOAK: over 1h a run is a plain one: --sweep, --repeat and --server-metrics (which keeps its reads) exit 2 before any traffic', async () => {
    expect(await exitOf(['--duration', '2h', '--rate', '1', '--sweep'])).toBe(2);
    expect(await exitOf(['--duration', '2h', '--repeat', '2'])).toBe(2);
    expect(await exitOf(['--duration', '2h', '--server-metrics', 'http://127.0.0.1:1/metrics'])).toBe(2);
    expect(await exitOf(['--duration', '25h'])).toBe(2);
  });

  it('a breached SLO exits 3 and the run still writes load.json, requests.ndjson and report.html', async () => {
    const out = join(dir, 'breach');
    const code = await exitOf(['--duration', '0.6s', '--concurrency', '2', '--slo', 'ttft.p50<1us', '--slo', 'errors.rate<0.5', '--report', out, '--quiet']);
    expect(code).toBe(3);
    const result = JSON.parse(readFileSync(join(out, 'load.json'), 'utf8')) as LoadResult;
    expect(result.slos.map((s) => s.passed)).toEqual([false, true]);
    expect(result.meta.target).toBe('bundled-mock');
    const lines = readFileSync(join(out, 'requests.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as RequestRecord);
    expect(lines.length).toBe(result.counts.finished + result.counts.warmupExcluded);
    expect(lines.every((l) => /^req_[0-9a-f]{24,}$/.test(l.requestId ?? ''))).toBe(true);
    expect(existsSync(join(out, 'report.html'))).toBe(true);
    // One JUnit testcase per SLO (plus one for stream conformance), the breached one failing.
    const junit = readFileSync(join(out, 'junit.xml'), 'utf8');
    expect((junit.match(/<testcase name="SLO /g) ?? []).length).toBe(2);
    expect((junit.match(/<failure/g) ?? []).length).toBe(1);
  });

  it('an open-loop non-streaming run that meets its SLOs exits 0', async () => {
    const out = join(dir, 'ok');
    const code = await exitOf(['--rate', '10', '--duration', '0.6s', '--no-stream', '--slo', 'errors.rate<0.01', '--slo', 'e2e.p99<5s', '--report', out, '--quiet']);
    expect(code).toBe(0);
    const result = JSON.parse(readFileSync(join(out, 'load.json'), 'utf8')) as LoadResult;
    expect(result.meta.mode).toMatchObject({ kind: 'open', engine: 'undici', rate: 10 });
    expect(result.counts.ok).toBe(6);
    expect(result.meta.config.stream).toBe(false);
  });

  it('--sweep doubles the rate until an SLO breaks and reports the highest rate that met it, with the curve', async () => {
    const out = join(dir, 'sweep');
    const code = await exitOf(['--rate', '5', '--duration', '0.6s', '--sweep', '--sweep-steps', '4', '--slo', 'throughput.rps<12', '--report', out, '--quiet']);
    expect(code).toBe(0);
    const result = JSON.parse(readFileSync(join(out, 'load.json'), 'utf8')) as LoadResult;
    expect(result.sweep?.steps.map((s) => s.level)).toEqual([5, 10, 20]);
    expect(result.sweep?.steps.map((s) => s.slosMet)).toEqual([true, true, false]);
    expect(result.sweep?.best).toBe(10);
    expect(result.sweep?.stopReason).toBe('slo_breached');
    expect(result.meta.mode).toMatchObject({ kind: 'open', rate: 10 });
  });
});
