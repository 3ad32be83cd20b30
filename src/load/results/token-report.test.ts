import { describe, expect, it } from 'vitest';
import { buildTokenReport, mergeTokenReports, TokenAcc, tokenLines } from './token-report.ts';
import { sampleLoadResult } from '../../../test-support/sample-load-result.ts';
import { renderLoadReport } from '../../report/load-html.ts';
import { Collector } from './collector.ts';
import { loadSections } from './load-sections.ts';
import { mergeResults } from './merge.ts';
import type { RequestTiming } from './request-timing.ts';
import { buildResult } from './result-builder.ts';
import { summaryTable } from './summary.ts';

describe('token report', () => {
  it('compares asked and received over the same requests and flags only differences over 5%', () => {
    const acc = new TokenAcc('target');
    for (let i = 0; i < 10; i++) acc.add(100 + 3, 50, { prompt: 100, output: 50 });
    const r = buildTokenReport(acc);
    expect(r.promptComparison).toMatchObject({ requests: 10, askedMean: 100, receivedMean: 103, difference: 0.03, long: 10 });
    expect(r.outputComparison).toMatchObject({ requests: 10, askedMean: 50, receivedMean: 50, difference: 0, short: 0 });
    expect(r.differences).toEqual([]);
    expect(r.prompt).toMatchObject({ unit: 'tokens', count: 10, mean: 103 });

    const early = new TokenAcc('target');
    early.add(0, 20, { prompt: 100, output: 50 });
    early.add(110, 50, { prompt: 100, output: 50 });
    early.add(0, 60, null);
    const e = buildTokenReport(early);
    expect(e.promptUnreported).toBe(1);
    expect(e.outputComparison).toMatchObject({ requests: 2, receivedMean: 35, short: 1 });
    expect(e.differences).toHaveLength(3);
    expect(e.differences[0]).toMatch(/^prompt tokens differ: asked a mean of 100 .* counted 110 \(\+10\.0%\)/);
    expect(e.differences[1]).toMatch(/1 requests got no usage\.prompt_tokens/);
    expect(e.differences[2]).toMatch(/^output tokens differ: asked a mean of 50 \(max_tokens\), received 35 \(-30\.0%\); 1 of 2 requests stopped before max_tokens/);
    expect(e.output?.count).toBe(3);
    expect(tokenLines(e).filter((l) => l.startsWith('DIFFERS'))).toHaveLength(3);
  });

  it('merges shard reports exactly: the same as one accumulation of every request', () => {
    const all = new TokenAcc('target');
    const parts = [new TokenAcc('target'), new TokenAcc('target')];
    for (let i = 0; i < 40; i++) {
      const args: [number, number, { prompt: number; output: number }] = [200 + (i % 7), 30 + (i % 5), { prompt: 200, output: 34 }];
      all.add(...args);
      parts[i % 2]!.add(...args);
    }
    const merged = mergeTokenReports(parts.map(buildTokenReport))!;
    const whole = buildTokenReport(all);
    expect({ ...merged, prompt: { ...merged.prompt, hdr: '' }, output: { ...merged.output, hdr: '' } }).toEqual({ ...whole, prompt: { ...whole.prompt, hdr: '' }, output: { ...whole.output, hdr: '' } });
    expect(mergeTokenReports([undefined, undefined])).toBeUndefined();
  });
});

describe('the tokens section through the load layer (result-section contract)', () => {
  const ms = (x: number): bigint => BigInt(Math.round(x * 1e6));
  const timing = (seq: number, promptTokens: number, outputTokens: number): RequestTiming => ({ seq, intendedNs: ms(100 + seq), sentNs: ms(100 + seq), headersNs: ms(105 + seq), endNs: ms(140 + seq), status: 200, requestId: null, tokenEvents: [{ atNs: ms(120 + seq), tokens: outputTokens }], outputTokens, promptTokens, tokenSource: 'usage', events: 2, error: null, abortedAtEnd: false });
  const run = (outputIs: 'target' | 'cap', shard: number) => {
    const c = new Collector({ measureStartNs: ms(100), measureStartEpochMs: 1_700_000_000_000, openLoop: false, slos: [], shard, requested: () => ({ prompt: 100, output: 50 }), sections: loadSections({ outputIs }) });
    for (let i = 0; i < 4; i++) {
      c.onStart(ms(100 + i));
      c.onFinish(timing(i, 100, i < 2 ? 20 : 50));
    }
    const meta = { ...sampleLoadResult().meta, measureStartEpochMs: 1_700_000_000_000, measureEndEpochMs: 1_700_000_002_000 };
    return buildResult({ meta, collector: c, slos: [], shard: { index: shard, count: 2 } });
  };

  it('LOAD-SECTIONS: tokens are collected from ok requests with what they asked, written, merged, printed and shown as report rows and notes through the list', () => {
    const a = run('target', 0);
    expect(a.tokens).toMatchObject({ outputIs: 'target', outputComparison: { requests: 4, askedMean: 50, receivedMean: 35, short: 2 } });
    expect(Object.keys(a).indexOf('tokens')).toBe(Object.keys(a).indexOf('validity') + 1);
    const merged = mergeResults([a, run('target', 1)], 'merged');
    expect(merged.tokens?.outputComparison).toMatchObject({ requests: 8, receivedSum: 280, short: 4 });
    expect(summaryTable(merged)).toMatch(/\noutput tokens: mean 35\.0, .*; asked mean 50, received 35 \(-30\.0%\)\nDIFFERS: output tokens differ/);
    const html = renderLoadReport(merged);
    expect(html).toMatch(/<dt>prompt tokens<\/dt><dd>mean 100\.0, [^<]*; asked a mean of 100, received 100 \(\+0%\) over 8 requests<\/dd>/);
    expect(html).toContain('<p class="status status-warn">Asked and received differ: output tokens differ: asked a mean of 50');
  });

  it('LOAD-SECTIONS: output tokens are "not applicable" when a section says the requests have no output_tps (embeddings), in the summary and the report', () => {
    const a = run('cap', 0);
    const whole = { ...a, embeddings: { batch: 2, requests: 4, inputs: 8, inputsPerS: 4, promptTokens: 400, promptTokensPerS: 200, requestsWithoutUsage: 0, inputsPerRequest: { mean: 2, min: 2, max: 2 }, dimensions: [64], notApplicable: ['ttft', 'itl', 'tpot', 'output_tps'] } };
    expect(summaryTable(whole)).toContain('\noutput tokens: not applicable (embeddings)\n');
    expect(renderLoadReport(whole)).toContain('<dt>output tokens</dt><dd>not applicable (embeddings)</dd>');
    expect(summaryTable(a)).not.toContain('not applicable (embeddings)');
  });

  it('LOAD-TOKENIZER: the section says who counted the asked prompts, in load.json, the summary and a merge, and reads a report written before it as o200k', () => {
    const server = new TokenAcc('cap', 'server /tokenize');
    for (let i = 0; i < 4; i++) server.add(120, 8, { prompt: 100, output: null });
    const r = buildTokenReport(server);
    expect(r.promptCountedBy).toBe('server /tokenize');
    expect(tokenLines(r)).toContain("prompt lengths asked, counted by: the server's own tokenizer (POST /tokenize, --tokenizer server)");
    expect(r.differences[0]).toMatch(/^prompt tokens differ: asked a mean of 100 \(the server's \/tokenize count of the message text\)/);
    expect(mergeTokenReports([r, r])?.promptCountedBy).toBe('server /tokenize');
    const o200k = new TokenAcc('cap');
    o200k.add(120, 8, { prompt: 100, output: null });
    const { promptCountedBy: _gone, ...old } = buildTokenReport(o200k);
    expect(buildTokenReport(o200k).promptCountedBy).toBe('o200k');
    expect(mergeTokenReports([old])?.promptCountedBy).toBe('o200k');
    expect(tokenLines(old)).toContain("prompt lengths asked, counted by: iari's o200k tokenizer (--tokenizer o200k; the server's may differ)");
    // Nothing asked (the built-in prompts): no such line.
    const none = new TokenAcc('cap');
    none.add(30, 8, null);
    expect(tokenLines(buildTokenReport(none)).some((l) => l.includes('counted by'))).toBe(false);
  });
});
