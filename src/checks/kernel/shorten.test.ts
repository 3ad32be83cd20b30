import { describe, expect, it } from 'vitest';
import { shorten } from './shorten.ts';

describe('shorten', () => {
  it('CHAT-021: a JSON body is cut between tokens, never mid-string, and says how many bytes were left out', () => {
    const body = JSON.stringify({ messages: [{ role: 'user', content: 'Say hello in one short sentence, please, and nothing else at all.' }] });
    const out = shorten(body, 80);
    const head = '{"messages":[{"role":"user","content":';
    expect(out).toBe(`${head}… (${Buffer.byteLength(body) - head.length} more bytes)`);
    // The message CHAT-021 printed before: 80 characters, cut inside the content string.
    expect(body.slice(0, 80)).not.toBe(head);
  });

  it('plain text is cut at a space; short text is left alone', () => {
    expect(shorten('upstream connect error or disconnect/reset before headers', 30)).toBe('upstream connect error or… (32 more bytes)');
    expect(shorten('ok', 30)).toBe('ok');
  });

  it('counts bytes, not characters, and never splits a surrogate pair', () => {
    const out = shorten('x'.repeat(9) + '😀'.repeat(10), 10);
    expect(out).toBe(`${'x'.repeat(9)}… (40 more bytes)`);
  });
});
