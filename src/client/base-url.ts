import { HarnessError, HarnessErrorCode } from '../errors.ts';

export interface NormalizedBaseUrl {
  /** scheme://host:port */
  origin: string;
  /** origin plus any path prefix before `/v1`, no trailing slash: paths like `/v1/models` are appended to it. */
  root: string;
  /** root + `/v1`: what an OpenAI client takes as its base URL. */
  v1: string;
}

/**
 * Accepts a base URL with or without the trailing `/v1` and with or without a trailing slash
 * (the interface puts `/v1` in its paths, OpenAI clients put it in the base URL).
 */
export function normalizeBaseUrl(input: string, who?: string): NormalizedBaseUrl {
  const error = (message: string, hint?: string): HarnessError =>
    new HarnessError(HarnessErrorCode.CONFIG_INVALID, who === undefined ? message : `${who}: ${message}`, hint === undefined ? {} : { hint });
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw error(`base URL ${input.includes('@') ? '(hidden: it contains @)' : JSON.stringify(input)} is not a valid URL`, 'for example http://127.0.0.1:8080/v1');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw error(`base URL scheme ${url.protocol} is not http: or https:`);
  }
  if (url.username !== '' || url.password !== '') {
    throw error('base URL must not carry credentials', 'pass the token through IARI_TOKEN or --token-file');
  }
  if (url.search !== '' || url.hash !== '') {
    throw error('base URL must not carry a query string or fragment');
  }
  let path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith('/v1')) path = path.slice(0, -3).replace(/\/+$/, '');
  const root = url.origin + path;
  return { origin: url.origin, root, v1: root + '/v1' };
}
