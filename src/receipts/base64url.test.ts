import { describe, expect, it } from 'vitest';
import { decodeBase64url, encodeBase64url } from './base64url.ts';

describe('base64url', () => {
  it('round-trips bytes without padding', () => {
    const bytes = new Uint8Array([0, 1, 2, 250, 251, 252, 253, 254, 255]);
    const text = encodeBase64url(bytes);
    expect(text).not.toContain('=');
    const d = decodeBase64url(text);
    expect(d.ok && Buffer.from(d.bytes).equals(Buffer.from(bytes))).toBe(true);
  });

  it.each([
    ['QU JD', 'alphabet'],
    ['QUJD==', 'alphabet'],
    ['QUJD!', 'alphabet'],
    ['QUJDR', 'length'],
    ['QUI', 'ok'],
    ['QUJ', 'noncanonical'],
  ])('decodes %j as %s (Buffer alone is lenient)', (text, reason) => {
    const d = decodeBase64url(text);
    expect(d.ok ? 'ok' : d.reason).toBe(reason);
  });

  it('rejects a 32-byte key string whose last character is an alias', () => {
    const text = encodeBase64url(new Uint8Array(32));
    expect(decodeBase64url(text, 32).ok).toBe(true);
    expect(decodeBase64url(`${text.slice(0, -1)}B`, 32)).toEqual({ ok: false, reason: 'noncanonical' });
  });
});
