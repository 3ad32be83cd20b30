import { describe, expect, it } from 'vitest';
import { buildTokenReport, mergeTokenReports, TokenAcc, tokenLines } from './token-report.ts';

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
