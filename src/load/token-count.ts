import { countTokens as countWithTokenizer } from 'gpt-tokenizer';

/** Client-side token count of one event's text (o200k BPE); at least 1 for a token-bearing event. */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  return Math.max(1, countWithTokenizer(text));
}

/**
 * Splits the server's `usage.completion_tokens` total over the token-bearing events, in
 * proportion to the client tokenizer's counts (largest remainder), every event keeping at
 * least one token while the total allows it (D-LOAD-03). Deterministic for equal inputs.
 */
export function apportionTokens(weights: readonly number[], total: number): number[] {
  const n = weights.length;
  if (n === 0) return [];
  if (total <= 0) return weights.map(() => 0);
  if (total <= n) return weights.map((_, i) => (i < total ? 1 : 0));
  const out = weights.map(() => 1);
  const rest = total - n;
  const w = weights.map((x) => Math.max(0, x - 1));
  const sum = w.reduce((a, b) => a + b, 0);
  const share = sum === 0 ? weights.map(() => rest / n) : w.map((x) => (x / sum) * rest);
  let given = 0;
  for (let i = 0; i < n; i++) {
    const f = Math.floor(share[i] ?? 0);
    out[i] = (out[i] ?? 1) + f;
    given += f;
  }
  const order = share.map((s, i) => ({ r: s - Math.floor(s), i })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (let j = 0; given < rest; j++, given++) {
    const idx = order[j % n]?.i ?? 0;
    out[idx] = (out[idx] ?? 0) + 1;
  }
  return out;
}

