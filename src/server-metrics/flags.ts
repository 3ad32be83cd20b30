// `iari load --server-metrics [URL]`, `--server-metrics-interval D`, `--server-metrics-header 'Name: value'`:
// checked before any traffic (exit 2 on a bad one). The flags are rows of src/load/plan/load-flag-table.ts.
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { checkDuration } from '../duration.ts';
import { DEFAULT_SCRAPE_INTERVAL_MS } from './scraper.ts';
import type { ServerMetricsOptions } from './session.ts';

/** A lone `--server-metrics` (followed by nothing or another flag) reads the default URL. */
export function serverMetricsArgv(argv: readonly string[]): string[] {
  return argv.map((a, i) => (a === '--server-metrics' && (i + 1 >= argv.length || (argv[i + 1] ?? '').startsWith('-')) ? '--server-metrics=' : a));
}

const usage = (message: string): HarnessError => new HarnessError(HarnessErrorCode.USAGE, `iari load: ${message}`);

export interface ServerMetricsFlags {
  'server-metrics'?: string | undefined;
  'server-metrics-interval'?: string | undefined;
  'server-metrics-header'?: string[] | undefined;
}

/** The options, or null without --server-metrics; header values read from env: are secrets the caller redacts. */
export function serverMetricsFromFlags(v: ServerMetricsFlags, env: NodeJS.ProcessEnv = process.env): ServerMetricsOptions | null {
  const given = v['server-metrics'];
  if (given === undefined) {
    if (v['server-metrics-interval'] !== undefined || v['server-metrics-header'] !== undefined) throw usage('--server-metrics-interval and --server-metrics-header need --server-metrics');
    return null;
  }
  let url: string | null = null;
  if (given.trim() !== '') {
    let parsed: URL;
    try {
      parsed = new URL(given.trim());
    } catch {
      throw usage(`--server-metrics must be an http(s) URL, got "${given.length > 60 ? `${given.slice(0, 60)}…` : given}"`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw usage(`--server-metrics must be an http(s) URL, got ${parsed.protocol}`);
    if (parsed.username !== '' || parsed.password !== '') throw usage('--server-metrics: put credentials in --server-metrics-header, not in the URL');
    url = parsed.href;
  }
  const intervalMs = v['server-metrics-interval'] === undefined ? DEFAULT_SCRAPE_INTERVAL_MS : checkDuration('iari load', '--server-metrics-interval', v['server-metrics-interval'], 0.1, 60);
  const headers = (v['server-metrics-header'] ?? []).map((raw) => header(raw, env));
  return { url, headers, intervalMs };
}

function header(raw: string, env: NodeJS.ProcessEnv): { name: string; value: string } {
  const colon = raw.indexOf(':');
  const name = colon <= 0 ? '' : raw.slice(0, colon).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw usage(`--server-metrics-header must be 'Name: value' with a valid field name`);
  const written = raw.slice(colon + 1).trim();
  const ref = /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(written);
  const value = ref === null ? written : (env[ref[1] as string] ?? '').trim();
  if (ref !== null && value === '') throw usage(`--server-metrics-header ${name}: $${ref[1] as string} is not set`);
  if (value === '') throw usage(`--server-metrics-header ${name} has an empty value`);
  // Never echo the value: it may be a secret.
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)) throw usage(`--server-metrics-header ${name}: the value contains a control character`);
  return { name, value };
}
