import { describe, expect, it } from 'vitest';
import { normalizeBaseUrl } from './check-context.ts';

describe('normalizeBaseUrl', () => {
  it('accepts a base URL with or without the trailing /v1', () => {
    expect(normalizeBaseUrl('http://127.0.0.1:8080/v1')).toEqual({ root: 'http://127.0.0.1:8080', display: 'http://127.0.0.1:8080/v1' });
    expect(normalizeBaseUrl('http://127.0.0.1:8080/')).toEqual({ root: 'http://127.0.0.1:8080', display: 'http://127.0.0.1:8080/v1' });
    expect(normalizeBaseUrl('https://api.example/proxy/v1/')).toEqual({ root: 'https://api.example/proxy', display: 'https://api.example/proxy/v1' });
  });

  it('drops credentials, query and fragment from what reports show', () => {
    expect(normalizeBaseUrl('http://user:secret@127.0.0.1:1/v1?key=x#f')).toEqual({ root: 'http://127.0.0.1:1', display: 'http://127.0.0.1:1/v1' });
  });

  it('rejects what is not an http(s) URL', () => {
    expect(normalizeBaseUrl('127.0.0.1:8080')).toHaveProperty('error');
    expect(normalizeBaseUrl('ftp://127.0.0.1/v1')).toHaveProperty('error');
  });
});
