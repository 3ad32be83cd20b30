import { describe, expect, it } from 'vitest';
import { EnvHttpProxyAgent } from 'undici';
import { assertTargetAllowed, connectionFromFlags, connectionSecrets, displayUrl, isLoopbackHost, parseHeader, proxyFor } from './connection-options.ts';
import { addHeaders } from './dispatcher.ts';
import { HarnessError } from '../errors.ts';

const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (error) {
    return (error as HarnessError).code;
  }
  return undefined;
};

describe('connection options', () => {
  it('--header takes a literal value or one from an env var, and never echoes a value in an error', () => {
    expect(parseHeader('load', 'OpenAI-Organization: org-123456', {})).toEqual({ name: 'OpenAI-Organization', value: 'org-123456', source: 'literal' });
    expect(parseHeader('load', 'X-Api-Project:env:PROJECT_ID', { PROJECT_ID: ' proj_secret_42 ' })).toEqual({ name: 'X-Api-Project', value: 'proj_secret_42', source: { env: 'PROJECT_ID' } });
    // Missing variable, too short to redact, control characters, reserved and malformed names.
    expect(codeOf(() => parseHeader('load', 'X-Org: env:NOPE', {}))).toBe('IARI_CONFIG_INVALID');
    expect(codeOf(() => parseHeader('load', 'X-Org: env:SHORT', { SHORT: 'abc' }))).toBe('IARI_CONFIG_INVALID');
    expect(codeOf(() => parseHeader('load', 'X-Org: env:BAD', { BAD: 'secret\r\nInjected: 1' }))).toBe('IARI_CONFIG_INVALID');
    for (const bad of ['Authorization: Bearer x', 'host: example.com', 'Content-Length: 3', 'no colon', ': value', 'Bad Name: v', 'X-Empty:']) {
      expect(codeOf(() => parseHeader('load', bad, {}))).toBe('IARI_USAGE');
    }
    try {
      parseHeader('load', 'X-Org: env:BAD', { BAD: 'topsecret\nvalue' });
    } catch (error) {
      expect((error as Error).message).not.toContain('topsecret');
    }
  });

  it('rejects a repeated header, --ca-file with --insecure, and a CA file without a certificate', () => {
    expect(codeOf(() => connectionFromFlags('load', { header: ['X-A: one-value', 'x-a: two-value'] }, {}))).toBe('IARI_USAGE');
    expect(codeOf(() => connectionFromFlags('load', { insecure: true, 'ca-file': '/dev/null' }, {}))).toBe('IARI_USAGE');
    expect(codeOf(() => connectionFromFlags('load', { 'ca-file': '/dev/null' }, {}))).toBe('IARI_INPUT_UNREADABLE');
    expect(codeOf(() => connectionFromFlags('load', { 'ca-file': '/nonexistent/ca.pem' }, {}))).toBe('IARI_INPUT_UNREADABLE');
  });

  it('lists header values and proxy credentials as secrets, and shows proxies without credentials', () => {
    const conn = connectionFromFlags('load', { header: ['X-Org: env:ORG'] }, { ORG: 'org-secret-value' });
    const env = { HTTPS_PROXY: 'http://proxyuser:proxy-pass-77@127.0.0.1:3128' };
    expect(connectionSecrets(conn, 'https://api.example.test', env).sort()).toEqual(['org-secret-value', 'proxy-pass-77', 'proxyuser'].sort());
    expect(displayUrl(env.HTTPS_PROXY)).toBe('http://127.0.0.1:3128');
  });

  it('a header value passed in plain sight under an ordinary name is not a secret; env: values and secret-named headers are (issue 22)', () => {
    const conn = connectionFromFlags('test', { header: ['x-portkey-provider: openai', 'X-Org: env:ORG', 'x-portkey-api-key: pk-literal-1', 'Cookie: session=abcdef', 'X-Auth-Token: tok-literal', 'client-secret: cs-literal'] }, { ORG: 'org-from-env' });
    expect(connectionSecrets(conn, null, {}).sort()).toEqual(['org-from-env', 'pk-literal-1', 'session=abcdef', 'tok-literal', 'cs-literal'].sort());
  });

  it('picks the proxy exactly as undici EnvHttpProxyAgent does (variables, https fallback, NO_PROXY host, subdomain, port, *)', async () => {
    const envs: NodeJS.ProcessEnv[] = [
      {},
      { HTTP_PROXY: 'http://127.0.0.1:1111' },
      { HTTPS_PROXY: 'http://127.0.0.1:2222' },
      { http_proxy: 'http://127.0.0.1:1111', HTTP_PROXY: 'http://127.0.0.1:9999' },
      { HTTP_PROXY: 'http://127.0.0.1:1111', NO_PROXY: 'example.test' },
      { HTTP_PROXY: 'http://127.0.0.1:1111', NO_PROXY: '.example.test:8443' },
      { HTTP_PROXY: 'http://127.0.0.1:1111', no_proxy: '*' },
      { HTTP_PROXY: 'http://127.0.0.1:1111', NO_PROXY: 'other.test, 127.0.0.1' },
    ];
    const origins = ['http://example.test', 'https://example.test', 'https://api.example.test:8443', 'http://api.example.test:8080', 'http://127.0.0.1:8080'];
    // Ground truth: the sub-agent EnvHttpProxyAgent hands each origin to (its dispatch is
    // replaced by a recorder, so nothing is sent), compared with proxyFor's answer.
    for (const env of envs) {
      const saved = { ...process.env };
      for (const k of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'NO_PROXY', 'no_proxy']) delete process.env[k];
      Object.assign(process.env, env);
      const agent = new EnvHttpProxyAgent() as unknown as Record<symbol, { dispatch: (...a: unknown[]) => boolean }> & { dispatch: (o: unknown, h: unknown) => boolean; close(): Promise<void> };
      const sub = (name: string) => Object.getOwnPropertySymbols(agent).find((s) => s.description === name);
      const noProxy = agent[sub('no proxy agent')!]!;
      let routed: unknown = undefined;
      for (const name of ['no proxy agent', 'http proxy agent', 'https proxy agent']) {
        const a = agent[sub(name)!]!;
        a.dispatch = () => {
          routed = a;
          return true;
        };
      }
      try {
        for (const origin of origins) {
          routed = undefined;
          agent.dispatch({ origin, path: '/', method: 'GET' }, { onError: () => undefined });
          expect(routed).toBeDefined();
          expect({ env, origin, proxied: proxyFor(origin, env) !== null }).toEqual({ env, origin, proxied: routed !== noProxy });
        }
      } finally {
        for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
        Object.assign(process.env, saved);
      }
    }
    expect(proxyFor('https://example.test', { HTTP_PROXY: 'http://127.0.0.1:1111' })).toBe('http://127.0.0.1:1111');
    expect(proxyFor('https://example.test', { HTTP_PROXY: 'http://127.0.0.1:1111', HTTPS_PROXY: 'http://127.0.0.1:2222' })).toBe('http://127.0.0.1:2222');
  });

  it('knows loopback by name: 127.0.0.0/8, ::1, v4-mapped 127.x and localhost, nothing else', () => {
    for (const h of ['127.0.0.1', '127.255.0.9', '[::1]', '::1', '::ffff:127.0.0.1', 'localhost', 'LOCALHOST']) expect(isLoopbackHost(h)).toBe(true);
    for (const h of ['128.0.0.1', '10.0.0.1', '::2', 'example.com', '127.0.0.256', 'localhost.example.com', '0.0.0.0']) expect(isLoopbackHost(h)).toBe(false);
  });

  it('the test guard IARI_LOOPBACK_ONLY=1 refuses a target or a proxy outside loopback, and lets everything through when unset', async () => {
    const guard = { IARI_LOOPBACK_ONLY: '1' };
    await expect(assertTargetAllowed('http://127.0.0.1:8080', guard)).resolves.toBeUndefined();
    await expect(assertTargetAllowed('https://[::1]:8443', guard)).resolves.toBeUndefined();
    await expect(assertTargetAllowed('http://localhost:8080', guard)).resolves.toBeUndefined();
    for (const origin of ['http://10.0.0.1:8080', 'https://128.0.0.1', 'http://[::2]:80']) {
      await expect(assertTargetAllowed(origin, guard)).rejects.toMatchObject({ code: 'IARI_TARGET_BLOCKED' });
    }
    await expect(assertTargetAllowed('http://127.0.0.1:8080', { ...guard, HTTP_PROXY: 'http://10.1.2.3:3128' })).rejects.toMatchObject({ code: 'IARI_TARGET_BLOCKED' });
    await expect(assertTargetAllowed('http://10.0.0.1:8080', {})).resolves.toBeUndefined();
  });

  it('adds --header headers to every header shape undici passes, keeping a header the request set itself', () => {
    const extra = [{ name: 'X-Org', value: 'org-1', source: 'literal' as const }];
    expect(addHeaders(undefined, extra)).toEqual({ 'X-Org': 'org-1' });
    expect(addHeaders({ accept: '*/*' }, extra)).toEqual({ accept: '*/*', 'X-Org': 'org-1' });
    expect(addHeaders({ 'x-org': 'mine' }, extra)).toEqual({ 'x-org': 'mine' });
    expect(addHeaders(['accept', '*/*'], extra)).toEqual(['accept', '*/*', 'X-Org', 'org-1']);
    expect(addHeaders(new Map([['accept', '*/*']]) as never, extra)).toEqual(['accept', '*/*', 'X-Org', 'org-1']);
  });
});
