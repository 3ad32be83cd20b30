import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exchangeFiles, exchangeProblems, loadCorpus, WILD_DIR } from './corpus.ts';

const corpus = loadCorpus();
const servers = ['OpenAI', 'vLLM', 'llama.cpp', 'Ollama', 'TGI', 'LiteLLM', 'LocalAI', 'SGLang'] as const;

function good(): Record<string, unknown> {
  return JSON.parse(readFileSync(join(WILD_DIR, 'openai', 'openai-404-model-not-found.json'), 'utf8')) as Record<string, unknown>;
}
const file = join(WILD_DIR, 'openai', 'openai-404-model-not-found.json');

describe('wild corpus files', () => {
  it('holds at least 60 exchanges, every one valid against exchange.schema.json', () => {
    expect(exchangeFiles().length).toBe(corpus.length);
    expect(corpus.length).toBeGreaterThanOrEqual(60);
  });

  it('covers OpenAI, vLLM, llama.cpp, Ollama, TGI, LiteLLM, LocalAI and SGLang with at least 3 exchanges each', () => {
    const counts = Object.fromEntries(servers.map((s) => [s, corpus.filter((e) => e.server === s).length]));
    expect(Object.values(counts).every((n) => n >= 3), JSON.stringify(counts)).toBe(true);
  });

  it('has both exchanges iari must pass and exchanges it must fail', () => {
    const verdicts = corpus.flatMap((e) => Object.values(e.verdicts).map((v) => v.verdict));
    expect(verdicts).toContain('pass');
    expect(verdicts).toContain('fail');
    expect(verdicts).toContain('non-strict');
    expect(verdicts).toContain('informational');
  });

  it('a well-formed exchange has no problems', () => {
    expect(exchangeProblems(good(), file)).toEqual([]);
  });

  it('an exchange without its source fails loudly', () => {
    const doc = good();
    delete doc['source'];
    expect(exchangeProblems(doc, file).join('\n')).toMatch(/must have required property 'source'/);
  });

  it('a verdict outside the closed set fails loudly', () => {
    const doc = good();
    doc['verdicts'] = { 'MODELS-010': { verdict: 'ok', rubric: 'not a verdict iari gives' } };
    expect(exchangeProblems(doc, file).join('\n')).toMatch(/verdicts\/MODELS-010\/verdict must be equal to one of the allowed values/);
  });

  it('a verdict for a requirement the registry does not have fails loudly', () => {
    const doc = good();
    doc['verdicts'] = { 'MODELS-999': { verdict: 'pass', rubric: 'no such requirement in the registry' } };
    expect(exchangeProblems(doc, file).join('\n')).toMatch(/unknown requirement MODELS-999/);
  });

  it('an id that is not the file name fails loudly', () => {
    const doc = { ...good(), id: 'some-other-name' };
    expect(exchangeProblems(doc, file).join('\n')).toMatch(/is not the file name/);
  });

  it('a response with two bodies, or an .sse file that is not there, fails loudly', () => {
    const two = good();
    two['response'] = { status: 200, body: {}, bodyText: '{}' };
    expect(exchangeProblems(two, file).join('\n')).toMatch(/must match exactly one schema in oneOf/);
    const missing = good();
    missing['response'] = { status: 200, sse: 'no-such-stream.sse' };
    expect(exchangeProblems(missing, file).join('\n')).toMatch(/no-such-stream\.sse does not exist/);
  });

  it('a source that is not an https URL, or an unknown match key, fails loudly', () => {
    const doc = good();
    doc['source'] = { url: 'http://example.invalid', quote: 'a quote long enough' };
    doc['replay'] = { match: { method: 'POST', path: '/v1/chat/completions', temperature: 3 } };
    const problems = exchangeProblems(doc, file).join('\n');
    expect(problems).toMatch(/source\/url must match pattern/);
    expect(problems).toMatch(/must NOT have additional properties/);
  });

  it('an openaiSdk observation without a recorded observed client impact fails loudly', () => {
    const doc = good();
    doc['clientImpact'] = [{ client: 'openai-node', call: 'create', effect: 'throws NotFoundError', evidence: 'cited', source: 'https://github.com/openai/openai-node' }];
    expect(exchangeProblems(doc, file).join('\n')).toMatch(/no clientImpact entry records the observed openai-node effect/);
  });
});
