import { describe, expect, it } from 'vitest';
import { dayOf, discoverShape, findDateKey, kindByName, locateRows, matchCounters, membersOfDay, readRows, rowsAt, type DeltaProbe } from './usage-shape.ts';

const probe = (moved: Record<string, number>): DeltaProbe => ({ usage: { prompt_tokens: 19, completion_tokens: 16, total_tokens: 35 }, moved });

describe('discovering the shape of GET /v1/me/usage', () => {
  it('USAGE-010: finds the profile shape by name, confirmed by the delta of one completion', () => {
    const body = { object: 'list', days: 2, data: [{ date: '2026-03-09', requests: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, spend_usd: 0 }, { date: '2026-03-10', requests: 3, prompt_tokens: 50, completion_tokens: 40, total_tokens: 90, spend_usd: 0.01 }] };
    const shape = discoverShape(body, probe({ requests: 1, prompt_tokens: 19, completion_tokens: 16, total_tokens: 35, spend_usd: 0.000051 }));
    expect(shape?.rows).toEqual({ pointer: '/data', form: 'array' });
    expect(shape?.date).toEqual({ member: 'date', form: 'date' });
    expect(Object.values(shape?.counters ?? {}).map((c) => `${c.member}:${c.by}`)).toEqual(['requests:name+delta', 'prompt_tokens:name+delta', 'completion_tokens:name+delta', 'total_tokens:name+delta', 'spend_usd:name+delta']);
  });

  it('USAGE-009, USAGE-011: reads the issue 10 server: {date, n_requests, tokens, cost_usd}, tokens without a split', () => {
    const body = { object: 'list', data: [{ date: '2026-03-10', n_requests: 2, tokens: 70, cost_usd: 0.002 }] };
    const shape = discoverShape(body)!;
    expect(Object.fromEntries(Object.entries(shape.counters).map(([k, c]) => [k, c.member]))).toEqual({ requests: 'n_requests', total_tokens: 'tokens', spend_usd: 'cost_usd' });
    expect(readRows(body, shape)).toEqual([{ date: '2026-03-10', requests: 2, total_tokens: 70, spend_usd: 0.002 }]);
  });

  it('USAGE-013: a bare array, a wrapper two levels down, Unix seconds and milliseconds, date-times, and a map keyed by day', () => {
    expect(locateRows([{ day: '2026-03-10', requests: 1 }])).toEqual({ pointer: '', form: 'array' });
    expect(locateRows({ usage: { daily: [{ timestamp: 1_773_100_800, num_requests: 1 }] } })).toEqual({ pointer: '/usage/daily', form: 'array' });
    expect(locateRows({ object: 'usage', data: { '2026-03-10': { requests: 1 } } })).toEqual({ pointer: '/data', form: 'map' });
    expect(locateRows({ meta: [], data: [{ date: '2026-03-10' }] })).toEqual({ pointer: '/data', form: 'array' });
    expect(dayOf(1_773_100_800, 'unix-seconds')).toBe('2026-03-10');
    expect(dayOf(1_773_100_800_000, 'unix-ms')).toBe('2026-03-10');
    expect(dayOf('2026-03-10T23:59:59+00:00', 'date-time')).toBe('2026-03-10');
    expect(dayOf('2026-02-30', 'date')).toBeUndefined();
    const map = { data: { '2026-03-09': { requests: 0, tokens: { prompt: 0, completion: 0 } }, '2026-03-10': { requests: 2, tokens: { prompt: 30, completion: 20 } } } };
    const shape = discoverShape(map)!;
    expect(shape.date).toEqual({ member: null, form: 'date' });
    expect(readRows(map, shape)).toEqual([
      { date: '2026-03-09', requests: 0, prompt_tokens: 0, completion_tokens: 0 },
      { date: '2026-03-10', requests: 2, prompt_tokens: 30, completion_tokens: 20 },
    ]);
  });

  it('USAGE-013: prefers the likeliest date member when several members hold dates', () => {
    const rows = rowsAt({ data: [{ updated_at: '2026-03-11T08:00:00Z', day: '2026-03-10', n: 1 }] }, { pointer: '/data', form: 'array' })!;
    expect(findDateKey(rows, { pointer: '/data', form: 'array' })).toEqual({ member: 'day', form: 'date' });
  });

  it('USAGE-013: names by their words: input/output, camelCase, cost, and cached or reasoning tokens left unplaced', () => {
    expect(['input_tokens', 'outputTokens', 'n_tokens', 'tokens', 'requestCount', 'num_calls', 'costUsd', 'spend', 'cached_tokens', 'reasoning_tokens', 'model'].map(kindByName)).toEqual([
      'prompt_tokens', 'completion_tokens', 'total_tokens', 'total_tokens', 'requests', 'requests', 'spend_usd', 'spend_usd', undefined, undefined, undefined,
    ]);
  });

  it('USAGE-013: places members no name explains by the delta of the probe completion alone, and only when it is unambiguous', () => {
    const { counters, unplaced } = matchCounters(['a', 'b', 'c', 'd'], probe({ a: 1, b: 35, c: 19, d: 0 }));
    expect(counters).toEqual({ requests: { member: 'a', by: 'delta' }, prompt_tokens: { member: 'c', by: 'delta' }, total_tokens: { member: 'b', by: 'delta' } });
    expect(unplaced).toEqual(['d']);
    // Prompt and completion of equal size: the delta cannot tell them apart.
    const equal: DeltaProbe = { usage: { prompt_tokens: 8, completion_tokens: 8, total_tokens: 16 }, moved: { x: 8, y: 8 } };
    expect(matchCounters(['x', 'y'], equal).counters).toEqual({});
  });

  it('USAGE-013: keeps a named counter the probe did not move, with a note, so the growth checks can find the fault', () => {
    const { counters } = matchCounters(['requests', 'total_tokens'], probe({ requests: 0, total_tokens: 0 }));
    expect(counters.requests).toEqual({ member: 'requests', by: 'name', note: 'one completion moved it by 0, expected 1' });
    expect(counters.total_tokens?.note).toBe('one completion moved it by 0, expected 35');
  });

  it('USAGE-013: of two members named like tokens, the one whose delta fits', () => {
    const { counters, unplaced } = matchCounters(['tokens', 'total_tokens'], probe({ tokens: 35, total_tokens: 70 }));
    expect(counters.total_tokens).toEqual({ member: 'tokens', by: 'name+delta' });
    expect(unplaced).toEqual(['total_tokens']);
  });

  it('USAGE-001: finds no footing where no member dates the rows, and sums repeated rows of one day', () => {
    expect(discoverShape({ data: [{ requests: 1 }] })).toBeUndefined();
    expect(discoverShape({ detail: 'Not Found' })).toBeUndefined();
    expect(discoverShape('abc')).toBeUndefined();
    const perModel = [{ date: '2026-03-10', model: 'a', requests: 1 }, { date: '2026-03-10', model: 'b', requests: 2 }, { date: '2026-03-09', model: 'a', requests: 5 }];
    expect(membersOfDay(perModel, '2026-03-10')).toEqual({ requests: 3 });
    expect(membersOfDay([], '2026-03-10')).toEqual({});
  });
});
