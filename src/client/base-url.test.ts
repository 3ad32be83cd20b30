import { describe, expect, it } from 'vitest';
import { normalizeBaseUrl } from './base-url.ts';
import { HarnessError } from '../errors.ts';

describe('normalizeBaseUrl', () => {
  it.each([
    'http://127.0.0.1:8080',
    'http://127.0.0.1:8080/',
    'http://127.0.0.1:8080/v1',
    'http://127.0.0.1:8080/v1/',
    'http://127.0.0.1:8080//v1//',
  ])('accepts %s with or without /v1 and trailing slashes', (input) => {
    expect(normalizeBaseUrl(input)).toEqual({ origin: 'http://127.0.0.1:8080', root: 'http://127.0.0.1:8080', v1: 'http://127.0.0.1:8080/v1' });
  });

  it('keeps a path prefix in front of /v1', () => {
    expect(normalizeBaseUrl('http://[::1]:9/api/v1/').v1).toBe('http://[::1]:9/api/v1');
  });

  it.each(['not a url', 'ftp://127.0.0.1/v1', 'http://u:p@127.0.0.1/v1', 'http://127.0.0.1/v1?x=1'])('rejects %s with a config error', (input) => {
    expect(() => normalizeBaseUrl(input)).toThrow(HarnessError);
  });

  it('does not echo credentials of a rejected URL in its message', () => {
    try {
      normalizeBaseUrl('http://user:hunter2@127.0.0.1/v1');
      expect.unreachable();
    } catch (e) {
      expect((e as Error).message).not.toContain('hunter2');
    }
  });
});
