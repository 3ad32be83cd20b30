import type { RunMeta } from './load-result.ts';

/** Sentences about how a run was set up, shared by the summary table and report.html. */

/** `https (verified: node, /etc/ssl/certs/ca-certificates.crt), via proxy http://127.0.0.1:3128, headers: OpenAI-Organization (from $ORG_ID)`. */
export function connectionText(meta: Pick<RunMeta, 'connection'>): string | null {
  const c = meta.connection;
  if (c === undefined) return null;
  const parts: string[] = [];
  if (c.tls === 'verified') parts.push(`TLS verified (trusted roots: ${c.trust.join(', ')})`);
  else if (c.tls === 'insecure') parts.push('TLS NOT verified (--insecure)');
  else parts.push('plain http');
  parts.push(c.proxy === null ? 'direct' : `via proxy ${c.proxy}`);
  if (c.headers.length > 0) parts.push(`extra headers: ${c.headers.join(', ')}`);
  return parts.join('; ');
}

/** Why the closed loop did not run on autocannon although it was asked for, or null. */
export function engineNote(meta: Pick<RunMeta, 'mode'>): string | null {
  return meta.mode.kind === 'closed' ? (meta.mode.engineNote ?? null) : null;
}
