import { describe, expect, it } from 'vitest';
import { CacheAcc, buildCacheReport } from '../load/results/cache-report.ts';
import { newHistogram, record, summarize } from '../load/results/hdr.ts';
import type { LoadResult } from '../load/results/load-result.ts';
import { ReasoningAcc, buildReasoningReport } from '../load/results/reasoning-report.ts';
import type { TokenEvent } from '../load/results/request-timing.ts';
import { ToolCallAcc, buildToolCallReport } from '../load/results/tool-call-report.ts';
import type { InvalidKind } from '../load/workloads/tool-calls.ts';
import { TurnsAcc, buildTurnReport } from '../load/results/turn-report.ts';
import { renderLoadReport } from './load-html.ts';
import { sampleLoadResult } from '../../test-support/sample-load-result.ts';
import { workloadSections } from './workload-views.ts';

const ids = ['turns', 'cache', 'reasoning', 'tool-calls'] as const;

function sectionOf(page: string, id: string): string {
  const m = new RegExp(`<section class="card" id="${id}">([\\s\\S]*?)</section>`).exec(page);
  if (m?.[1] === undefined) throw new Error(`no section ${id}`);
  return m[1];
}

const text = (markup: string) => markup.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();

/** The body rows of every table in `markup`, as cell texts. */
function tableRows(markup: string): string[][] {
  const bodies = [...markup.matchAll(/<tbody>([\s\S]*?)<\/tbody>/g)].map((m) => m[1] ?? '');
  return bodies.flatMap((b) => [...b.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((r) => [...(r[1] ?? '').matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => text(c[1] ?? ''))));
}

const barValues = (markup: string) => [...markup.matchAll(/class="bar-value"[^>]*>([^<]*)</g)].map((m) => m[1]);
const pct1 = (x: number) => `${(x * 100).toFixed(1)}%`;
const ms = (n: number) => `${n} ms`;

function baseResult(): LoadResult {
  const r = sampleLoadResult({ durationS: 5 });
  for (const id of ['turns', 'cache', 'reasoning', 'toolCalls'] as const) expect(r[id]).toBeUndefined();
  return r;
}

describe('workload sections of the load report.html', () => {
  it('LOAD-CONVERSATION: the per-turn table and charts show TTFT p50/p95, prompt and cached tokens of each turn', () => {
    const acc = new TurnsAcc();
    // The collector passes the 0-based turn index; row i is turn i + 1.
    const turns = [
      { turn: 1, ttftMs: 100, prompt: 300, cached: null, n: 4 },
      { turn: 2, ttftMs: 200, prompt: 600, cached: 256, n: 3 },
      { turn: 3, ttftMs: 400, prompt: 900, cached: 512, n: 2 },
    ];
    // The last request of each turn is the slow, long one: p50 is the base, p95 the slow one.
    for (const t of turns) for (let i = 0; i < t.n; i++) acc.add(t.turn - 1, (i === t.n - 1 ? 2 : 1) * t.ttftMs * 1000, t.prompt + (i === t.n - 1 ? 40 : 0), t.cached);
    const report = buildTurnReport(acc, { loop: 'closed', thinkTimeMs: 250, conversationsStarted: 5, conversationsCompleted: 4 });
    expect(report).toBeDefined();
    const r = { ...baseResult(), ...(report === undefined ? {} : { turns: report }) };
    const s = sectionOf(renderLoadReport(r), 'turns');
    expect(tableRows(s)).toEqual(
      turns.map((t) => [String(t.turn), String(t.n), ms(t.ttftMs), ms(2 * t.ttftMs), String(Number(((t.prompt * t.n + 40) / t.n).toFixed(1))), String(t.prompt + 40), t.cached === null ? '–' : String(t.cached)]),
    );
    expect(text(s)).toContain('think time 250 ms; 5 conversations started, 4 completed');
    expect(s.match(/data-chart="line"/g)).toHaveLength(2);
  });

  it('LOAD-PREFIX: the cache section shows the token and request hit rates and TTFT of hits against misses', () => {
    const acc = new CacheAcc();
    for (let i = 0; i < 6; i++) acc.add(80, 100, 100_000);
    for (let i = 0; i < 2; i++) acc.add(0, 100, 300_000);
    acc.add(null, 100, 50_000);
    const cache = buildCacheReport(acc);
    expect(cache).toBeDefined();
    const r = { ...baseResult(), ...(cache === undefined ? {} : { cache }) };
    const s = sectionOf(renderLoadReport(r), 'cache');
    expect(text(s)).toContain(`${pct1(480 / 800)} token hit rate`);
    expect(text(s)).toContain(`${pct1(6 / 8)} request hit rate`);
    expect(text(s)).toContain('1 did not report it');
    expect(tableRows(s)).toEqual([
      ['cache hit', '6', ms(100), ms(100), ms(100), ms(100)],
      ['cache miss', '2', ms(300), ms(300), ms(300), ms(300)],
    ]);
    // Bars in order p50 (hit, miss), p95 (hit, miss).
    expect(barValues(s)).toEqual([ms(100), ms(300), ms(100), ms(300)]);
  });

  it('LOAD-REASONING: the reasoning section sets TTFT against TTFO and ITL over every token against answer tokens only', () => {
    const acc = new ReasoningAcc();
    const at = (msAt: number, reasoning: boolean): TokenEvent => ({ atNs: BigInt(msAt * 1_000_000), tokens: 1, ...(reasoning ? { reasoning: true as const } : {}) });
    // Reasoning tokens at 50, 60, 70 ms; answer tokens at 120, 125, 130 ms.
    const events = [at(50, true), at(60, true), at(70, true), at(120, false), at(125, false), at(130, false)];
    for (let i = 0; i < 2; i++) acc.add(events, 0n, 3, 'usage');
    const reasoning = buildReasoningReport(acc);
    expect(reasoning).toBeDefined();
    const ttft = newHistogram();
    record(ttft, 50_000);
    record(ttft, 50_000);
    const base = baseResult();
    const r: LoadResult = { ...base, metrics: { ...base.metrics, ttft: summarize(ttft, 'us') }, ...(reasoning === undefined ? {} : { reasoning }) };
    const s = sectionOf(renderLoadReport(r), 'reasoning');
    const rows = new Map(tableRows(s).map((row) => [row[0], row.slice(1)]));
    expect(rows.get('TTFT (first token, reasoning included)')?.[0]).toBe('50.0 ms');
    expect(rows.get('TTFO (first answer token)')?.[0]).toBe(ms(120));
    expect(rows.get('reasoning phase (TTFO − TTFT)')?.[0]).toBe('70.0 ms');
    expect(rows.get('reasoning tokens per request')).toEqual(['3', '3', '3', '3', '2']);
    // Gaps 10, 10, 50, 5, 5 ms over every token; 5, 5 ms between answer tokens.
    expect(rows.get('ITL, every token')?.[0]).toBe('10.0 ms');
    expect(rows.get('ITL, every token')?.[4]).toBe('10');
    expect(rows.get('ITL, answer tokens only')?.slice(0, 2)).toEqual(['5.00 ms', '5.00 ms']);
    expect(rows.get('ITL, answer tokens only')?.[4]).toBe('4');
    expect(text(s)).toContain('6 reasoning tokens');
    expect(barValues(s).slice(0, 4)).toEqual(['50 ms', '50 ms', '120 ms', '120 ms']);
  });

  it('LOAD-TOOLS: the tool-call section shows the call rate and the invalid calls by kind as shares of all calls', () => {
    const kindOf: Record<string, InvalidKind> = { nj: 'not_json', uf: 'unknown_function' };
    const acc = new ToolCallAcc((calls) => calls.flatMap((c) => (c.name !== null && kindOf[c.name] !== undefined ? [kindOf[c.name] as InvalidKind] : [])));
    const call = (name: string) => ({ name, arguments: '{}' });
    for (let i = 0; i < 4; i++) acc.add([call('ok'), call('ok')], 80_000);
    for (let i = 0; i < 2; i++) acc.add([call('nj'), call('ok')], 80_000);
    for (let i = 0; i < 2; i++) acc.add([call('uf')], 80_000);
    for (let i = 0; i < 2; i++) acc.add(undefined, 60_000);
    const toolCalls = buildToolCallReport(acc, 'builtin');
    expect(toolCalls).toBeDefined();
    const r = { ...baseResult(), ...(toolCalls === undefined ? {} : { toolCalls }) };
    const s = sectionOf(renderLoadReport(r), 'tool-calls');
    const calls = 8 + 4 + 2;
    expect(text(s)).toContain(`${pct1(8 / 10)} call rate`);
    expect(text(s)).toContain(`${calls} calls`);
    expect(text(s)).toContain(`${pct1(4 / calls)} invalid rate`);
    expect(tableRows(s)).toEqual([
      ['not_json arguments not JSON', '2', pct1(2 / calls)],
      ['unknown_function unknown function', '2', pct1(2 / calls)],
      ['schema_mismatch arguments break the schema', '0', pct1(0)],
      ['any', '4', pct1(4 / calls)],
    ]);
    expect(barValues(s)).toEqual([`${Number(((2 / calls) * 100).toPrecision(3))}%`, `${Number(((2 / calls) * 100).toPrecision(3))}%`, '0%']);
  });

  it('LOAD-WORKLOAD: a run without conversation, cache, reasoning or tool-call data has none of those sections', () => {
    const page = renderLoadReport(baseResult());
    for (const id of ids) expect(page).not.toContain(`id="${id}"`);
    expect(workloadSections(baseResult()).value).toBe('');
    const acc = new CacheAcc();
    acc.add(10, 100, 1000);
    const cache = buildCacheReport(acc);
    const only = workloadSections({ ...baseResult(), ...(cache === undefined ? {} : { cache }) }).value;
    expect(ids.filter((id) => only.includes(`id="${id}"`))).toEqual(['cache']);
  });
});
