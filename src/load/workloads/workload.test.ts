import { describe, expect, it } from 'vitest';
import { encode } from 'gpt-tokenizer';
import { buildWorkload, drawLength, rngFor, syntheticPrompt, syntheticPromptCount, syntheticVocabulary, type WorkloadSpec } from './workload.ts';
import { parseExtraBody, parseTokenLength } from '../plan/workload-options.ts';
import { CLI_LOAD_NAMES, planFromFlags } from '../../cli/load-flags.ts';

const workloadFromFlags = (v: Parameters<typeof planFromFlags>[0]) => planFromFlags(v).workloadPlan;
import { seededRandom } from '../../seeded-random.ts';
import { optionsToScenario, scenarioToOptions } from '../plan/scenario.ts';
import { bodies } from '../../../test-support/workload-bodies.ts';

const base = { model: 'm', maxTokens: 64, stream: true, seed: 7, prompts: [[{ role: 'user' as const, content: 'hi' }]] };
const spec = (over: Partial<WorkloadSpec>): WorkloadSpec => ({ input: { kind: 'prompts' }, output: null, maxTokensField: 'max_tokens', extraBody: null, ...over });

describe('token-length workloads', () => {
  it('a synthetic prompt of N words is exactly N o200k tokens, for any N', () => {
    const rng = seededRandom(11);
    for (const n of [1, 2, 3, 17, 256, 999, 3000]) expect(encode(syntheticPrompt(n, rng)).length).toBe(n);
  });

  it('draws lengths around the mean with the asked spread, reproducibly for a seed', () => {
    const rng = seededRandom(5);
    const xs = Array.from({ length: 20_000 }, () => drawLength(rng, { mean: 500, stdev: 50 }));
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length);
    expect(Math.abs(mean - 500)).toBeLessThan(2);
    expect(Math.abs(sd - 50)).toBeLessThan(2);
    expect(drawLength(seededRandom(1), { mean: 3, stdev: 0 })).toBe(3);
    expect(drawLength(() => 1e-12, { mean: 2, stdev: 100 })).toBeGreaterThanOrEqual(1);
  });

  it('synthetic bodies carry the drawn prompt and max_tokens, differ per request and repeat per seed', () => {
    const w = buildWorkload(spec({ input: { kind: 'synthetic', length: { mean: 40, stdev: 10 } }, output: { mean: 30, stdev: 0 } }), base);
    const a = JSON.parse(bodies(w)(0)) as { messages: { content: string }[]; max_tokens: number; stream_options: unknown };
    const r0 = w.requested(0);
    expect(encode(a.messages[0]?.content ?? '').length).toBe(r0.prompt);
    expect(a.max_tokens).toBe(30);
    expect(r0.output).toBe(30);
    expect(a.stream_options).toEqual({ include_usage: true });
    expect(bodies(w)(1)).not.toBe(bodies(w)(0));
    expect(bodies(buildWorkload(spec({ input: { kind: 'synthetic', length: { mean: 40, stdev: 10 } }, output: { mean: 30, stdev: 0 } }), base))(5)).toBe(bodies(w)(5));
    expect(bodies(buildWorkload(spec({ input: { kind: 'synthetic', length: { mean: 40, stdev: 10 } }, output: { mean: 30, stdev: 0 } }), { ...base, seed: 8 }))(5)).not.toBe(bodies(w)(5));
    expect(w.outputIs).toBe('target');
  });

  it('puts the length where --max-tokens-field says and merges --extra-body into every body', () => {
    const both = JSON.parse(bodies(buildWorkload(spec({ output: { mean: 9, stdev: 0 }, maxTokensField: 'both', extraBody: { ignore_eos: true, min_tokens: 9 } }), base))(0)) as Record<string, unknown>;
    expect(both).toMatchObject({ max_tokens: 9, max_completion_tokens: 9, ignore_eos: true, min_tokens: 9, model: 'm' });
    const mct = JSON.parse(bodies(buildWorkload(spec({ maxTokensField: 'max_completion_tokens' }), base))(0)) as Record<string, unknown>;
    expect(mct['max_completion_tokens']).toBe(64);
    expect('max_tokens' in mct).toBe(false);
    // A cap, not a target: nothing to compare with.
    expect(buildWorkload(spec({}), base).requested(0)).toEqual({ prompt: null, output: null });
    expect(buildWorkload(spec({}), base).outputIs).toBe('cap');
  });

  it('rejects bad lengths, non-object or reserved --extra-body, and contradictory flags (exit 2)', () => {
    expect(parseTokenLength('inputTokens', '512,64', CLI_LOAD_NAMES)).toEqual({ mean: 512, stdev: 64 });
    for (const bad of ['', 'abc', '0', '-5', '10,-1', '5,100']) expect(() => parseTokenLength('inputTokens', bad, CLI_LOAD_NAMES)).toThrow(/input-tokens/);
    expect(parseExtraBody('{"ignore_eos":true}', CLI_LOAD_NAMES)).toEqual({ ignore_eos: true });
    for (const bad of ['[1]', 'null', '{bad', '{"max_tokens":5}', '{"model":"x"}', '{"messages":[]}', '{"stream":false}']) expect(() => parseExtraBody(bad, CLI_LOAD_NAMES)).toThrow(/--extra-body/);
    const code = (v: Record<string, string>): string | undefined => {
      try {
        workloadFromFlags(v);
      } catch (e) {
        return (e as { code: string }).code;
      }
      return undefined;
    };
    expect(code({ 'input-tokens': '5', prompts: 'p.jsonl' })).toBe('IARI_USAGE');
    expect(code({ 'input-tokens': '5', dataset: 'd.json' })).toBe('IARI_USAGE');
    expect(code({ dataset: 'd.json', prompts: 'p.jsonl' })).toBe('IARI_USAGE');
    expect(code({ 'output-tokens': '5', 'max-tokens': '9' })).toBe('IARI_USAGE');
    expect(code({ 'dataset-size': '5' })).toBe('IARI_USAGE');
    expect(code({ 'max-tokens-field': 'max' })).toBe('IARI_USAGE');
    expect(workloadFromFlags({})).toEqual({ spec: undefined, dataset: null });
  });
});

describe('shared-prefix workloads (--prefix-tokens, --prefix-groups)', () => {
  const prefixed = (groups: number) => buildWorkload(spec({ input: { kind: 'synthetic', length: { mean: 20, stdev: 0 } }, prefix: { tokens: 64, groups } }), base);
  type Body = { messages: { role: string; content: string }[] };

  it('LOAD-PREFIX: every request starts with a system prompt of exactly N tokens, one of G texts, identical within a group', () => {
    const w = prefixed(3);
    const byGroup = new Map<number, Set<string>>();
    for (let seq = 0; seq < 60; seq++) {
      const b = JSON.parse(bodies(w)(seq)) as Body;
      const r = w.requested(seq);
      expect(b.messages[0]?.role).toBe('system');
      expect(encode(b.messages[0]?.content ?? '').length).toBe(64);
      expect(encode(b.messages[1]?.content ?? '').length).toBe(20);
      expect(r.prompt).toBe(84);
      const set = byGroup.get(r.prefixGroup ?? -1) ?? new Set<string>();
      set.add(b.messages[0]?.content ?? '');
      byGroup.set(r.prefixGroup ?? -1, set);
    }
    expect([...byGroup.keys()].sort()).toEqual([0, 1, 2]);
    for (const texts of byGroup.values()) expect(texts.size).toBe(1);
    expect(new Set([...byGroup.values()].map((s) => [...s][0])).size).toBe(3);
  });

  it('LOAD-PREFIX: --prefix-groups needs --prefix-tokens, and both take bounded integers (exit 2 before any traffic)', () => {
    expect(() => workloadFromFlags({ 'prefix-groups': '4' })).toThrow(/--prefix-groups needs --prefix-tokens/);
    expect(() => workloadFromFlags({ 'prefix-tokens': '0' })).toThrow(/--prefix-tokens must be an integer from 1/);
    expect(() => workloadFromFlags({ 'prefix-tokens': '10', 'prefix-groups': 'x' })).toThrow(/--prefix-groups must be an integer/);
    expect(workloadFromFlags({ 'prefix-tokens': '512', 'prefix-groups': '8' }).spec?.prefix).toEqual({ tokens: 512, groups: 8 });
  });
});

describe('conversation flags (--turns, --think-time)', () => {
  it('LOAD-CONVERSATION: --think-time needs --turns, and both are checked before any traffic', () => {
    expect(() => workloadFromFlags({ 'think-time': '1s' })).toThrow(/--think-time needs --turns/);
    expect(() => workloadFromFlags({ turns: 'x' })).toThrow(/--turns must be MEAN/);
    expect(() => workloadFromFlags({ turns: '3', 'think-time': 'soon' })).toThrow(/--think-time must be a duration/);
    expect(() => workloadFromFlags({ turns: '5000' })).toThrow(/at most 1000 turns/);
    expect(workloadFromFlags({ turns: '4,1', 'think-time': '250ms' }).spec?.conversation).toEqual({ turns: { mean: 4, stdev: 1 }, thinkTimeMs: 250 });
  });
});

describe('room for a whole tool call (issue 43)', () => {
  const declaring = (flags: Parameters<typeof planFromFlags>[0]) => workloadFromFlags(flags).spec?.tools;

  it('LOAD-TOOLS: with no output length chosen, the requests that declare tools ask for at least 256 tokens; the others keep the default', async () => {
    const { requestSource } = await import('./request-source.ts');
    const { defaultProtocols } = await import('../../protocols/registry.ts');
    const tools = declaring({ tools: 'builtin', 'tool-share': '0.5' });
    expect(tools?.outputFloor).toBe(256);
    const source = requestSource(spec({ tools: tools! }), base, defaultProtocols[0]);
    const asked = Array.from({ length: 40 }, (_, seq) => JSON.parse(source.body(seq)) as { max_tokens: number; tools?: unknown[] });
    expect(asked.filter((b) => b.tools !== undefined).every((b) => b.max_tokens === 256)).toBe(true);
    expect(asked.filter((b) => b.tools === undefined).every((b) => b.max_tokens === 64)).toBe(true);
    expect(asked.some((b) => b.tools !== undefined) && asked.some((b) => b.tools === undefined)).toBe(true);
  });

  it('LOAD-TOOLS: a chosen --max-tokens or --output-tokens is kept as asked, tools or not', () => {
    expect(declaring({ tools: 'builtin', 'max-tokens': '16' })?.outputFloor).toBeUndefined();
    expect(declaring({ tools: 'builtin', 'output-tokens': '32' })?.outputFloor).toBeUndefined();
  });
});

describe('--tokenizer server: asked prompt lengths are the server\'s counts', () => {
  // A stand-in server tokenizer: a word alone is as many tokens as its length's parity + 1, after a space one more.
  const words = syntheticVocabulary();
  const counts = { alone: words.map((w) => 1 + (w.length % 2)), spaced: words.map((w) => 2 + (w.length % 2)) };
  const input = { kind: 'synthetic' as const, length: { mean: 40, stdev: 10 }, tokenizer: 'server' as const };

  it('LOAD-TOKENIZER: a prompt\'s asked length is its first word\'s count alone plus every later word\'s count after a space', () => {
    const text = syntheticPrompt(25, rngFor(3, 9, 3));
    const [first, ...rest] = text.split(' ');
    const want = counts.alone[words.indexOf(first!)]! + rest.reduce((a, w) => a + counts.spaced[words.indexOf(w)]!, 0);
    expect(syntheticPromptCount(25, rngFor(3, 9, 3), counts)).toBe(want);
    expect(want).toBeGreaterThan(25);
  });

  it('LOAD-TOKENIZER: with counts the prompts are the o200k run\'s words, and requested(seq).prompt is their server count', () => {
    const o200k = buildWorkload(spec({ input: { kind: 'synthetic', length: { mean: 40, stdev: 10 } } }), base);
    const server = buildWorkload(spec({ input: { ...input, counts } }), base);
    for (let seq = 0; seq < 20; seq++) {
      expect(bodies(server)(seq)).toBe(bodies(o200k)(seq));
      const text = (server.intent(seq).messages[0] as { content: string }).content;
      const n = text.split(' ').length;
      expect(o200k.requested(seq).prompt).toBe(n);
      expect(server.requested(seq).prompt).toBe(syntheticPromptCount(n, rngFor(base.seed, seq, 3), counts));
    }
  });

  it('LOAD-TOKENIZER: --tokenizer server takes plain --input-tokens prompts only, and o200k is the default', () => {
    expect(workloadFromFlags({ 'input-tokens': '64', tokenizer: 'server' }).spec?.input).toEqual({ kind: 'synthetic', length: { mean: 64, stdev: 0 }, tokenizer: 'server' });
    expect(workloadFromFlags({ 'input-tokens': '64' }).spec?.input).toEqual({ kind: 'synthetic', length: { mean: 64, stdev: 0 } });
    expect(workloadFromFlags({ 'input-tokens': '64', tokenizer: 'o200k' }).spec?.input).toEqual({ kind: 'synthetic', length: { mean: 64, stdev: 0 } });
    expect(() => workloadFromFlags({ tokenizer: 'server' })).toThrow(/--tokenizer server counts synthetic prompts only: give --input-tokens/);
    expect(() => workloadFromFlags({ tokenizer: 'server', dataset: 'x.jsonl' })).toThrow(/--tokenizer server counts synthetic prompts only/);
    for (const [flag, value] of [['prefix-tokens', '16'], ['turns', '3'], ['embeddings-batch', '4']] as const) {
      expect(() => workloadFromFlags({ 'input-tokens': '64', tokenizer: 'server', [flag]: value }), flag).toThrow(new RegExp(`--tokenizer server is not yet supported with --${flag}`));
    }
    expect(() => workloadFromFlags({ 'input-tokens': '64', tokenizer: 'llama' })).toThrow(/--tokenizer must be o200k or server, got "llama"/);
  });

  it('LOAD-TOKENIZER: a scenario file names it as the synthetic part\'s tokenizer, and it reads back as the option', () => {
    const s = optionsToScenario({ inputTokens: '64', tokenizer: 'server' });
    expect(s.workload).toEqual([{ kind: 'synthetic', inputTokens: '64', tokenizer: 'server' }]);
    expect(scenarioToOptions(s).options).toMatchObject({ inputTokens: '64', tokenizer: 'server' });
  });
});
