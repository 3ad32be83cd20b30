import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { run } from './mock-command.ts';
import { HarnessError } from '../errors.ts';

function captureStdout(): { text: () => string; restore: () => void } {
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    return true;
  });
  return { text: () => out, restore: () => spy.mockRestore() };
}

async function waitForOutput(text: () => string, pattern: RegExp): Promise<void> {
  const until = Date.now() + 5_000;
  while (!pattern.test(text())) {
    if (Date.now() > until) throw new Error(`no output matching ${pattern} in ${JSON.stringify(text().slice(0, 300))}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('iari mock', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('--list-faults prints every fault with its kind and the requirement IDs it breaks', async () => {
    const out = captureStdout();
    const code = await run(['--list-faults']);
    out.restore();
    expect(code).toBe(0);
    const lines = out.text().trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(45);
    expect(lines.find((l) => l.startsWith('stream-no-done'))).toMatch(/^stream-no-done\s+fault\s+CHAT-STREAM-002$/);
    expect(lines.find((l) => l.startsWith('legal-crlf'))).toMatch(/^legal-crlf\s+legal\s+-$/);
  });

  it('refuses unknown faults, and an address it cannot listen on, with exit code 2', async () => {
    const unknown = await run(['--fault', 'no-such-fault']).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(HarnessError);
    expect((unknown as HarnessError).code).toBe('IARI_FAULT_UNKNOWN');
    expect((unknown as HarnessError).exitCode).toBe(2);
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): no interface here has it, so listening fails (no traffic is sent).
    const error = await run(['--host', '192.0.2.1', '--no-receipts']).catch((e: unknown) => e);
    expect((error as HarnessError).code).toBe('IARI_CONFIG_INVALID');
    expect((error as HarnessError).message).toMatch(/cannot listen on 192\.0\.2\.1 port 0: EADDRNOTAVAIL/);
    expect((error as HarnessError).exitCode).toBe(2);
    const conflict = await run(['--ledger', '/tmp/x.jsonl', '--no-receipts']).catch((e: unknown) => e);
    expect((conflict as HarnessError).code).toBe('IARI_USAGE');
    const badPort = await run(['--port', 'eighty']).catch((e: unknown) => e);
    expect((badPort as HarnessError).exitCode).toBe(2);
  });

  it('prints the base URL on the first line, shows a generated token once, serves, and stops on SIGTERM', async () => {
    const before = process.env['IARI_TOKEN'];
    delete process.env['IARI_TOKEN'];
    const out = captureStdout();
    try {
      const running = run(['--port', '0', '--ttft', '0', '--itl', '0', '--jitter', '0', '--no-receipts']);
      await waitForOutput(out.text, /shown once\): \S+\n/);
      const [first, second] = out.text().split('\n');
      expect(first).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const token = /shown once\): (\S+)$/.exec(second ?? '')?.[1] ?? '';
      expect(token).toMatch(/^iari_sk_/);
      const res = await fetch(`${first}/me`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      expect(out.text().split(token).length - 1).toBe(1);
      process.emit('SIGTERM');
      expect(await running).toBe(0);
    } finally {
      out.restore();
      if (before !== undefined) process.env['IARI_TOKEN'] = before;
    }
  });

  it('never prints a token taken from IARI_TOKEN', async () => {
    const before = process.env['IARI_TOKEN'];
    process.env['IARI_TOKEN'] = 'iari_env_token_must_not_be_printed_42';
    const out = captureStdout();
    try {
      const running = run(['--port', '0', '--no-receipts']);
      await waitForOutput(out.text, /taken from IARI_TOKEN/);
      expect(out.text()).not.toContain('iari_env_token_must_not_be_printed_42');
      const url = out.text().split('\n')[0] ?? '';
      expect((await fetch(`${url}/me`, { headers: { authorization: 'Bearer iari_env_token_must_not_be_printed_42' } })).status).toBe(200);
      process.emit('SIGINT');
      expect(await running).toBe(130);
    } finally {
      out.restore();
      if (before === undefined) delete process.env['IARI_TOKEN'];
      else process.env['IARI_TOKEN'] = before;
    }
  });

  it('--host binds where asked: 127.0.0.2 serves there, 0.0.0.0 serves on every interface and says so', async () => {
    const before = process.env['IARI_TOKEN'];
    delete process.env['IARI_TOKEN'];
    onTestFinished(() => {
      if (before !== undefined) process.env['IARI_TOKEN'] = before;
    });
    for (const host of ['127.0.0.2', '0.0.0.0']) {
      const out = captureStdout();
      try {
        const running = run(['--host', host, '--port', '0', '--no-receipts', '--ttft', '0', '--itl', '0', '--jitter', '0']);
        await waitForOutput(out.text, /shown once\): \S+\n/);
        await waitForOutput(out.text, host === '0.0.0.0' ? /other machines/ : /shown once/);
        const lines = out.text().split('\n');
        const first = lines[0];
        const second = lines.find((l) => l.includes('shown once'));
        expect(first).toMatch(new RegExp(`^http://${host.replace(/\./g, '\\.')}:\\d+/v1$`));
        const port = /:(\d+)\/v1$/.exec(first ?? '')?.[1];
        const token = /shown once\): (\S+)$/.exec(second ?? '')?.[1] ?? '';
        // Reached over loopback in both cases: 127.0.0.2 directly, 0.0.0.0 through 127.0.0.1.
        const via = host === '0.0.0.0' ? '127.0.0.1' : host;
        expect((await fetch(`http://${via}:${port}/v1/me`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
        if (host === '0.0.0.0') expect(out.text()).toContain('listening on 0.0.0.0: other machines can reach this mock');
        else expect(out.text()).not.toContain('other machines can reach');
        process.emit('SIGTERM');
        expect(await running).toBe(0);
      } finally {
        out.restore();
      }
    }
  });
});
