import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED, redactHeaders, sanitize, scrubCredentials, stripUrlCredentials } from './redact.ts';

const secret = 'sk-iari-canary-7f3a9c21d4';

describe('redact', () => {
  it('scrubs a secret from strings, including its URL-encoded, JSON-escaped and base64 forms', () => {
    const r = createRedactor([secret, 'tok/with"quote+']);
    expect(r.string(`Bearer ${secret} and ${secret}`)).toBe(`Bearer ${REDACTED} and ${REDACTED}`);
    expect(r.string(`?k=${encodeURIComponent('tok/with"quote+')}`)).toBe(`?k=${REDACTED}`);
    expect(r.string(JSON.stringify({ t: 'tok/with"quote+' }))).toBe(`{"t":"${REDACTED}"}`);
    expect(r.string(Buffer.from(secret).toString('base64'))).not.toContain(Buffer.from(secret).toString('base64').slice(0, 20));
    expect(r.leaks(`x ${secret} y`)).toBe(true);
    expect(r.leaks('nothing here')).toBe(false);
  });

  it('scrubs secrets deep inside objects, arrays, keys and errors without touching the input', () => {
    const r = createRedactor([secret]);
    const input = { a: [1, { b: `x${secret}` }], [secret]: true, e: new Error(`bad ${secret}`), n: null };
    const out = r.value(input);
    expect(JSON.stringify(out)).not.toContain(secret);
    expect(out.a[1]).toEqual({ b: `x${REDACTED}` });
    expect(Object.keys(out)).toContain(REDACTED);
    expect(out.e.message).toBe(`bad ${REDACTED}`);
    expect(input.a[1]).toEqual({ b: `x${secret}` });
  });

  it('handles cyclic objects', () => {
    const r = createRedactor([secret]);
    const a: Record<string, unknown> = { s: secret };
    a['self'] = a;
    const out = r.value(a);
    expect(out['s']).toBe(REDACTED);
    expect(out['self']).toBe(out);
  });

  it('scrubs a short secret by exact value only, never out of an ordinary word (issue 22: "openai" became "[REDACTED]-node")', () => {
    const r = createRedactor(['openai']);
    expect(r.string('{"provider":"openai","sdk":"openai-node","x":"myopenai","y":"openai2"}')).toBe(`{"provider":"${REDACTED}","sdk":"${REDACTED}-node","x":"myopenai","y":"openai2"}`);
    const long = createRedactor([secret]);
    expect(long.string(`abc${secret}def`)).toBe(`abc${REDACTED}def`);
  });

  it('ignores empty and very short secrets instead of shredding the text', () => {
    const r = createRedactor(['', 'ab', undefined]);
    expect(r.string('abc ab')).toBe('abc ab');
  });

  it('scrubs Authorization and API-key header values whatever the token, but keeps the $IARI_TOKEN placeholder', () => {
    expect(scrubCredentials('Authorization: Bearer abc.def-123')).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(scrubCredentials(`{"authorization":"Bearer zzz"}`)).toBe(`{"authorization":"Bearer ${REDACTED}"}`);
    expect(scrubCredentials("curl -H 'Authorization: Basic dXNlcjpwdw=='")).toBe(`curl -H 'Authorization: Basic ${REDACTED}'`);
    expect(scrubCredentials('-H "Authorization: Bearer $IARI_TOKEN"')).toBe('-H "Authorization: Bearer $IARI_TOKEN"');
    expect(scrubCredentials('-H "Authorization: Bearer ${IARI_TOKEN}"')).toBe('-H "Authorization: Bearer ${IARI_TOKEN}"');
    expect(scrubCredentials('Authorization: Bearer $IARI_TOKENxyz')).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(scrubCredentials('x-api-key: k123456')).toBe(`x-api-key: ${REDACTED}`);
    // The placeholder survives JSON and HTML escaping of the curl line around it.
    const curl = `curl -H "Authorization: Bearer $IARI_TOKEN" http://127.0.0.1/v1/me`;
    expect(scrubCredentials(JSON.stringify({ curl }))).toBe(JSON.stringify({ curl }));
    const escaped = curl.replace(/"/g, '&quot;');
    expect(scrubCredentials(escaped)).toBe(escaped);
    expect(scrubCredentials(JSON.stringify({ h: 'Authorization: Bearer abc123' }))).toBe(JSON.stringify({ h: `Authorization: Bearer ${REDACTED}` }));
  });

  it('scrubs URL userinfo and credential query parameters', () => {
    expect(scrubCredentials('see http://user:pw@127.0.0.1:8080/v1 now')).toBe(`see http://${REDACTED}@127.0.0.1:8080/v1 now`);
    expect(scrubCredentials('http://h/v1?api_key=abc&x=1&token=t')).toBe(`http://h/v1?api_key=${REDACTED}&x=1&token=${REDACTED}`);
    expect(stripUrlCredentials('http://user:pw@127.0.0.1:8080/v1')).toBe('http://127.0.0.1:8080/v1');
    expect(stripUrlCredentials('not a url')).toBe('not a url');
  });

  it('redacts sensitive headers and keeps the auth scheme', () => {
    expect(redactHeaders({ Authorization: `Bearer ${secret}`, cookie: 'a=b', 'content-type': 'application/json' })).toEqual({
      Authorization: `Bearer ${REDACTED}`,
      cookie: REDACTED,
      'content-type': 'application/json',
    });
  });

  it('sanitize applies both layers', () => {
    const r = createRedactor([secret]);
    expect(sanitize(`token ${secret} Authorization: Bearer other-token`, r)).toBe(`token ${REDACTED} Authorization: Bearer ${REDACTED}`);
  });
});
