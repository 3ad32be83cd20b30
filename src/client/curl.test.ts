import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { connectionFromFlags } from './connection-options.ts';
import { buildCurl, shellQuote } from './curl.ts';

/** What bash makes of a word list: each argument on its own line, via printf. */
function bashArgs(line: string, env: Record<string, string> = {}): string[] {
  const script = line.replace(/^curl /, 'printf "%s\\0" ');
  const out = execFileSync('bash', ['-c', script], { env: { PATH: process.env['PATH'] ?? '', ...env } });
  return out.toString('utf8').split('\0').slice(0, -1);
}

describe('buildCurl', () => {
  it('writes the token as $IARI_TOKEN, expanded by the shell, and never the token itself', () => {
    const secret = 'sk-secret-canary-123';
    const line = buildCurl({
      method: 'POST',
      url: 'http://127.0.0.1:8080/v1/chat/completions',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'x-echo': secret },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: `it's ${secret}` }] }),
      bearer: true,
      secrets: [secret],
      stream: true,
    });
    expect(line).not.toContain(secret);
    const args = bashArgs(line, { IARI_TOKEN: 'EXPANDED' });
    expect(args).toContain('Authorization: Bearer EXPANDED');
    expect(args).toContain('-N');
    // Wherever the token was sent, the line sends $IARI_TOKEN's value: the request it reproduces is the same.
    expect(args).toContain('x-echo: EXPANDED');
    const body = args[args.indexOf('--data-binary') + 1];
    expect(JSON.parse(body ?? '')).toEqual({ model: 'm', messages: [{ role: 'user', content: "it's EXPANDED" }] });
  });

  it('round-trips bodies with quotes, newlines and unicode through the shell unchanged', () => {
    const body = `{"a":"it's \\"quoted\\"\\n","b":"$HOME \`x\` 世界"}\n`;
    const args = bashArgs(buildCurl({ method: 'POST', url: 'http://127.0.0.1/v1/x', body, bearer: false }));
    expect(args[args.indexOf('--data-binary') + 1]).toBe(body);
  });

  it('writes non-UTF-8 bodies with ANSI-C escapes that bash turns back into the same bytes', () => {
    const bytes = Uint8Array.from([0x7b, 0xff, 0x27, 0x5c, 0x0a, 0x7d]);
    const line = buildCurl({ method: 'POST', url: 'http://127.0.0.1/v1/x', body: bytes, bearer: false });
    const script = line.replace(/^curl .* --data-binary /, 'printf "%s" ');
    expect([...execFileSync('bash', ['-c', script])]).toEqual([...bytes]);
  });

  it('leaves out -X for a plain GET and the Authorization line for an unauthenticated request', () => {
    expect(buildCurl({ method: 'GET', url: 'http://127.0.0.1:1/v1/models', bearer: false })).toBe('curl -sS http://127.0.0.1:1/v1/models');
  });

  it('quotes words only when needed', () => {
    expect(shellQuote('abc-1.2/x')).toBe('abc-1.2/x');
    expect(shellQuote('')).toBe("''");
    expect(shellQuote("a b'c")).toBe("'a b'\\''c'");
  });

  it('carries every --header iari sent: plain values as given, env: and secret-named values as $VAR (issue 22: the gateway answered 400 without x-portkey-provider)', () => {
    const conn = connectionFromFlags('test', { header: ['x-portkey-provider: openai', 'X-Org: env:ORG_ID', 'x-portkey-api-key: pk-literal-secret'] }, { ORG_ID: 'org-secret-value' });
    const line = buildCurl({ method: 'GET', url: 'http://127.0.0.1:8080/v1/models', bearer: true, connectionHeaders: conn.headers });
    expect(line).not.toContain('org-secret-value');
    expect(line).not.toContain('pk-literal-secret');
    const args = bashArgs(line, { IARI_TOKEN: 'T', ORG_ID: 'ORG-EXPANDED', IARI_HEADER_X_PORTKEY_API_KEY: 'KEY-EXPANDED' });
    expect(args).toEqual(expect.arrayContaining(['x-portkey-provider: openai', 'X-Org: ORG-EXPANDED', 'x-portkey-api-key: KEY-EXPANDED', 'Authorization: Bearer T']));
    // Another run's line carries its own headers only.
    expect(buildCurl({ method: 'GET', url: 'http://127.0.0.1:8080/v1/models', bearer: true })).not.toContain('x-portkey');
  });
});

describe('buildCurl with named secrets', () => {
  it('writes each secret as its own variable, expanded by the shell, and escapes the rest of a double-quoted word', () => {
    const first = 'sk-first-secret-0001';
    const second = 'sk-second-secret-0002';
    const line = buildCurl({
      method: 'GET',
      url: 'http://127.0.0.1:1/v1/me',
      headers: { authorization: `Basic ${second}`, 'x-note': `$HOME "q" \`c\` ${first}` },
      bearer: false,
      secrets: [[first, '$IARI_TOKEN'], [second, '$IARI_TOKEN_2']],
    });
    expect(line).not.toContain(first);
    expect(line).not.toContain(second);
    const args = bashArgs(line, { IARI_TOKEN: 'ONE', IARI_TOKEN_2: 'TWO', HOME: '/nowhere' });
    expect(args).toContain('authorization: Basic TWO');
    expect(args).toContain('x-note: $HOME "q" `c` ONE');
  });

  it('cuts a long body and sends a body that starts with @ with --data-raw (curl would read a file)', () => {
    const args = bashArgs(buildCurl({ method: 'POST', url: 'http://127.0.0.1/v1/x', body: 'a'.repeat(50), bearer: false, maxBodyChars: 10 }));
    expect(args[args.indexOf('--data-binary') + 1]).toBe(`${'a'.repeat(10)}...`);
    const at = bashArgs(buildCurl({ method: 'POST', url: 'http://127.0.0.1/v1/x', body: '@/etc/passwd', bearer: false }));
    expect(at[at.indexOf('--data-raw') + 1]).toBe('@/etc/passwd');
  });
});
