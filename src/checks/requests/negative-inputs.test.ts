import { describe, expect, it } from 'vitest';
import { sampleNegativeInputs } from './negative-inputs.ts';

const VALID_ROLES = ['system', 'user', 'assistant', 'tool', 'developer', 'function'];

/** The independent rules of CreateChatCompletionRequest that the generated inputs must break. */
function breaksTheSchema(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return true;
  const b = body as Record<string, unknown>;
  if (typeof b['model'] !== 'string') return true;
  const m = b['messages'];
  if (!Array.isArray(m) || m.length === 0) return true;
  for (const msg of m) {
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return true;
    const r = (msg as Record<string, unknown>)['role'];
    if (typeof r !== 'string' || !VALID_ROLES.includes(r)) return true;
    if (typeof (msg as Record<string, unknown>)['content'] !== 'string') return true;
  }
  const num = (k: string, lo: number, hi: number, int = false) =>
    k in b && b[k] !== null && (typeof b[k] !== 'number' || (b[k] as number) < lo || (b[k] as number) > hi || (int && !Number.isInteger(b[k])));
  if (num('temperature', 0, 2) || num('top_p', 0, 1) || num('n', 1, 128, true) || num('max_completion_tokens', 0, Number.MAX_SAFE_INTEGER, true)) return true;
  if ('stream' in b && b['stream'] !== null && typeof b['stream'] !== 'boolean') return true;
  if ('tools' in b && !Array.isArray(b['tools'])) return true;
  if ('stop' in b && !(b['stop'] === null || typeof b['stop'] === 'string' || Array.isArray(b['stop']))) return true;
  return false;
}

describe('sampleNegativeInputs', () => {
  it('gives the same inputs for the same seed and other inputs for another seed', () => {
    expect(sampleNegativeInputs('m', 42, 20)).toEqual(sampleNegativeInputs('m', 42, 20));
    expect(sampleNegativeInputs('m', 42, 20)).not.toEqual(sampleNegativeInputs('m', 43, 20));
  });

  it('generates only requests that break the chat-completions request schema', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      for (const input of sampleNegativeInputs('iari-mini', seed, 50)) expect(breaksTheSchema(input.body), `${input.why}: ${JSON.stringify(input.body)}`).toBe(true);
    }
  });
});
