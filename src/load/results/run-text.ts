import type { RunMeta, TokenReport } from './load-result.ts';

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

/** What each request asked for: `synthetic prompts of 512±64 tokens, output 128 tokens (max_tokens), extra body {"ignore_eos":true}`. */
export function workloadText(meta: Pick<RunMeta, 'config'>): string | null {
  const w = meta.config.workload;
  if (w === undefined) return null;
  const len = (l: { mean: number; stdev: number }): string => `${l.mean}${l.stdev > 0 ? `±${l.stdev}` : ''} tokens`;
  const input = w.trace !== undefined
    ? `${w.trace.format === 'mooncake' ? 'Mooncake' : 'BurstGPT'} trace ${w.trace.file}: one user message per entry of its input length${w.trace.format === 'mooncake' ? ' (each hash id a shared block of 512 tokens)' : ''}`
    : w.input === 'prompts'
      ? 'built-in or --prompts messages'
      : 'synthetic' in w.input
        ? `synthetic prompts of ${len(w.input.synthetic)}`
        : `${w.input.dataset.format === 'sharegpt' ? 'ShareGPT' : 'iari JSONL'} dataset ${w.input.dataset.file} (${w.input.dataset.samples} conversations kept of ${w.input.dataset.read} read, ${w.input.dataset.skipped} left out)`;
  if (w.embeddings !== undefined) return `POST /v1/embeddings, ${w.embeddings.batch} input${w.embeddings.batch === 1 ? '' : 's'} per request${w.embeddings.encodingFormat === undefined ? '' : ` (encoding_format ${w.embeddings.encodingFormat})`}, texts from ${input}${w.extraBody === null ? '' : `; extra body ${JSON.stringify(w.extraBody)}`}`;
  const output = w.trace !== undefined ? `output lengths from the trace (${w.maxTokensField})` : w.output !== null ? `output ${len(w.output)} (${w.maxTokensField})` : typeof w.input === 'object' && 'dataset' in w.input ? `output lengths from the dataset (${w.maxTokensField})` : `${w.maxTokensField} ${meta.config.maxTokens}`;
  const prefix = w.prefix === undefined ? '' : `; a shared prefix of ${w.prefix.tokens} tokens (${w.prefix.groups} group${w.prefix.groups === 1 ? '' : 's'})`;
  return `${input}; ${output}${prefix}${w.extraBody === null ? '' : `; extra body ${JSON.stringify(w.extraBody)}`}`;
}

/** `mean 512.0, p50 512, p99 577 (n 340)` for a token distribution, or null. */
export function tokenDistributionText(h: TokenReport['prompt']): string {
  return h === null ? 'not reported by the server' : `mean ${h.mean.toFixed(1)}, p50 ${h.percentiles.p50}, p90 ${h.percentiles.p90}, p99 ${h.percentiles.p99}, min ${h.min}, max ${h.max} (${h.count} requests)`;
}
