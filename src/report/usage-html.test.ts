import { describe, expect, it } from 'vitest';
import { discoveryBlock, usageTip } from './usage-html.ts';
import type { UsageDiscovery } from '../checks/wire/usage-shape.ts';

describe('the usage section of report.html', () => {
  it('USAGE-013: names only the counters the server rows carry in each tooltip', () => {
    expect(usageTip({ date: '2026-03-10', requests: 3, total_tokens: 1200, spend_usd: 0.5 })).toBe('2026-03-10\n3 requests\n1,200 tokens\n$0.5000 spend');
    expect(usageTip({ date: '2026-03-10', requests: 1, prompt_tokens: 10, completion_tokens: 5 })).toBe('2026-03-10\n1 requests\n15 tokens (10 prompt, 5 completion)');
  });

  it('USAGE-013: shows what iari discovered: where the rows are, the day, each counter, how it was told and how far the probe moved it', () => {
    const d: UsageDiscovery = {
      path: '/v1/me/usage',
      shape: { rows: { pointer: '/usage/daily', form: 'array' }, date: { member: 'timestamp', form: 'unix-seconds' }, counters: { requests: { member: 'num_requests', by: 'name+delta' }, total_tokens: { member: 'toks', by: 'delta' } }, unplaced: ['cached'] },
      probe: { usage: { prompt_tokens: 19, completion_tokens: 16, total_tokens: 35 }, moved: { num_requests: 1, toks: 35, cached: 0 } },
      days: { defaultRows: 7, defaultSpanDays: 7, param: 'ignored' },
    };
    const page = discoveryBlock(d).value;
    expect(page).toContain('<code>/usage/daily</code>');
    expect(page).toContain('<code>timestamp</code> (unix-seconds)');
    expect(page).toContain('<tr><td>requests</td><td>num_requests</td><td>name+delta</td><td>1</td>');
    expect(page).toContain('<tr><td>total_tokens</td><td>toks</td><td>delta</td><td>35</td>');
    expect(page).toContain('<tr><td>spend_usd</td><td>(none)</td>');
    expect(page).toContain('ignored (days=7 answered the same rows); without it 7 rows spanning 7 days');
    expect(page).toContain('cached');
  });
});
