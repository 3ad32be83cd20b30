import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run } from '../../src/cli/load-command.ts';
import type { LoadResult, RequestRecord } from '../../src/load/results/load-result.ts';
import { syntheticPrompt } from '../../src/load/workloads/workload.ts';
import { seededRandom } from '../../src/seeded-random.ts';

/**
 * Token-length workloads against the bundled mock, whose answers follow max_tokens, ignore_eos
 * and min_tokens: the lengths asked for are the lengths measured (within 5% of the asked means),
 * and when a server stops early the report says so.
 */
describe('iari load token-length workloads on the bundled mock', () => {
  let dir: string;
  let out = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'iari-workloads-'));
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
      return true;
    });
  });
  afterAll(() => {
    vi.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });
  const load = async (name: string, argv: string[]): Promise<{ r: LoadResult; lines: RequestRecord[]; text: string }> => {
    out = '';
    const report = join(dir, name);
    expect(await run([...argv, '--report', report, '--quiet'])).toBe(0);
    const r = JSON.parse(readFileSync(join(report, 'load.json'), 'utf8')) as LoadResult;
    const lines = readFileSync(join(report, 'requests.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as RequestRecord);
    return { r, lines, text: out };
  };
  const within = (got: number, want: number, tolerance = 0.05): void => {
    expect(Math.abs(got / want - 1), `${got} vs ${want}`).toBeLessThanOrEqual(tolerance);
  };

  it('LOAD-WORKLOAD: synthetic prompts of 512±64 and outputs of 128±16 with ignore_eos measure within 5% of the asked means', async () => {
    const { r, lines, text } = await load('synthetic', ['--input-tokens', '512,64', '--output-tokens', '128,16', '--extra-body', '{"ignore_eos":true}', '--concurrency', '32', '--duration', '2s']);
    const t = r.tokens!;
    expect(t.prompt!.count).toBeGreaterThanOrEqual(40);
    within(t.prompt!.mean, 512);
    within(t.output!.mean, 128);
    // Asked against received over the same requests: the mock counts 7 tokens of chat framing
    // (and counts prompts over 4 KiB in blocks, which can add one more).
    const framing = (t.promptComparison!.receivedSum - t.promptComparison!.askedSum) / t.promptComparison!.requests;
    expect(framing).toBeGreaterThanOrEqual(7);
    expect(framing).toBeLessThan(7.5);
    within(t.outputComparison!.receivedMean, t.outputComparison!.askedMean, 0.01);
    expect(t.differences).toEqual([]);
    // The spread was asked for too: the prompts are not all one length.
    expect(t.prompt!.stddev).toBeGreaterThan(40);
    const measured = lines.filter((l) => l.phase === 'measure' && l.error === null);
    expect(measured.every((l) => l.requested?.prompt != null && [7, 8].includes((l.promptTokens ?? 0) - l.requested.prompt))).toBe(true);
    expect(r.meta.config.workload).toMatchObject({ input: { synthetic: { mean: 512, stdev: 64 } }, output: { mean: 128, stdev: 16 }, extraBody: { ignore_eos: true } });
    expect(text).toMatch(/prompt tokens \(server usage\): mean 5\d\d\.\d/);
    expect(text).not.toContain('DIFFERS');
  }, 90_000);

  it('LOAD-WORKLOAD: without ignore_eos the mock stops early, and the report says asked and received differ and how to ask for exact lengths', async () => {
    const { r, text } = await load('early', ['--input-tokens', '64', '--output-tokens', '256', '--concurrency', '16', '--duration', '1.5s']);
    const t = r.tokens!;
    expect(t.outputComparison!.receivedMean).toBeLessThan(60);
    expect(t.outputComparison!.short).toBe(t.outputComparison!.requests);
    expect(t.differences.some((d) => d.startsWith('output tokens differ: asked a mean of 256 (max_tokens)') && d.includes('"ignore_eos":true'))).toBe(true);
    // 64 asked, 71 counted: +10.9%, over the threshold, explained by the chat framing.
    expect(t.differences.some((d) => d.startsWith('prompt tokens differ'))).toBe(true);
    expect(text).toContain('DIFFERS: output tokens differ');
    const html = readFileSync(join(dir, 'early', 'report.html'), 'utf8');
    expect(html).toContain('Asked and received differ');
  }, 90_000);

  it('LOAD-WORKLOAD: a ShareGPT dataset sends its first turns with the second turns\' lengths as max_tokens; with ignore_eos the measured means match', async () => {
    const rng = seededRandom(99);
    const entries = Array.from({ length: 120 }, (_, i) => ({
      id: `c${i}`,
      conversations: [
        { from: 'human', value: syntheticPrompt(20 + Math.floor(rng() * 300), rng) },
        { from: 'gpt', value: syntheticPrompt(10 + Math.floor(rng() * 150), rng) },
      ],
    }));
    const file = join(dir, 'sharegpt.json');
    writeFileSync(file, JSON.stringify(entries));
    const { r, lines } = await load('dataset', ['--dataset', file, '--dataset-size', '100', '--extra-body', '{"ignore_eos":true}', '--concurrency', '32', '--duration', '2s']);
    const t = r.tokens!;
    expect(r.meta.config.workload?.input).toMatchObject({ dataset: { format: 'sharegpt', samples: 100, read: 120 } });
    const sent = lines.filter((l) => l.phase === 'measure' && l.error === null);
    expect(sent.length).toBeGreaterThanOrEqual(40);
    const askedPrompt = sent.reduce((a, l) => a + (l.requested?.prompt ?? 0), 0) / sent.length;
    const askedOutput = sent.reduce((a, l) => a + (l.requested?.output ?? 0), 0) / sent.length;
    within(t.prompt!.mean, askedPrompt);
    within(t.output!.mean, askedOutput);
    expect(t.differences).toEqual([]);
    // The prompts come from the file: every asked prompt length is one of the conversations'.
    expect(new Set(sent.map((l) => l.requested?.prompt)).size).toBeGreaterThan(10);
  }, 90_000);
});
