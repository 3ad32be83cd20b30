import { describe, expect, it } from 'vitest';
import { sampleLoadResult } from '../../../test-support/sample-load-result.ts';
import { renderLoadReport } from '../../report/load-html.ts';
import type { AnyRunRecord, ResultSection, RunRecord } from '../../sections/section-contract.ts';
import { runFailure } from './run-verdict.ts';
import { Collector } from './collector.ts';
import { loadSections } from './load-sections.ts';
import { mergeResults } from './merge.ts';
import type { RequestTiming } from '../measure/request-timer.ts';
import { buildResult } from './result-builder.ts';
import { parseSlos } from './slo.ts';
import { progressLine, summaryTable } from './summary.ts';

/**
 * A new section is one module and one list entry: this toy section (how measured requests ended)
 * reaches load.json, the shard merge, the summary, report.html and an SLO through the list alone.
 */
interface Outcomes {
  ok: number;
  failed: number;
  failedShare: number;
}
const outcomes: ResultSection<Outcomes, { ok: number; failed: number }> = {
  key: 'outcomes',
  place: 'outcome',
  open: () => ({ ok: 0, failed: 0 }),
  collect(acc, r) {
    if (r.outcome === 'ok') acc.ok++;
    if (r.outcome === 'failed') acc.failed++;
  },
  build: (acc) => (acc.ok + acc.failed === 0 ? undefined : { ...acc, failedShare: acc.failed / (acc.ok + acc.failed) }),
  merge(parts) {
    const ok = parts.reduce((a, p) => a + p.ok, 0);
    const failed = parts.reduce((a, p) => a + p.failed, 0);
    return { ok, failed, failedShare: failed / (ok + failed) };
  },
  summary: (o) => [`outcomes: ${o.ok} ok, ${o.failed} failed`],
  tile: (o) => ({ id: 'outcomes', title: 'Outcomes', stats: [{ label: 'failed share', value: `${Math.round(o.failedShare * 100)}%` }] }),
  slos: [{ metric: 'outcomes', stats: ['failed_share'], unit: 'ratio', help: 'outcomes.failed_share<10%', observe: (o) => o?.failedShare ?? null, noData: 'no request ended' }],
};

/**
 * A run-record toy (no per-request collect; its figures are read when the run ends, as the server
 * section's are): placed at the end, its own SLO grammar (`beacon.up`, `beacon.level==3`), judged
 * even when no request finished, a reason per stat, and the run's seconds and warmup count in view.
 */
interface Beacon {
  level: number;
  up: boolean;
}
function beacon(read: () => Beacon | undefined): ResultSection<Beacon, undefined> {
  return {
    key: 'beacon',
    place: 'end',
    open: () => undefined,
    collect() {},
    build: () => read(),
    merge: (parts) => ({ level: Math.max(...parts.map((p) => p.level)), up: parts.every((p) => p.up) }),
    summary: (o, _fmt, run) => [`beacon: level ${o.level}, ${run.counts?.warmupExcluded ?? '?'} warmup, ${run.timeslices?.length ?? '?'} seconds`],
    tile: (o, run) => ({
      id: 'beacon',
      title: 'Beacon',
      toc: 'Beacon',
      charts: [{ kind: 'lines', title: 'Beacon seconds', series: [{ name: 'out', tone: 'bad', points: (run.timeslices ?? []).map((t) => ({ x: t.tS, y: t.outputTokens })) }], xLabel: 's', xIntegers: false, yLabel: 'tokens', format: 'plain', xDomain: [0, 9], breakOver: 1 }],
      table: { head: ['check', 'verdict'], rows: [['up', { badge: o.up ? 'agree' : 'disagree', tone: o.up ? 'good' : 'bad' }]], numeric: [], after: { title: 'Is the beacon up?' } },
    }),
    slos: [
      {
        metric: 'beacon',
        stats: ['up', 'level'],
        unit: 'count',
        help: 'beacon.up, beacon.level==3',
        observe: (o, stat) => (o === undefined ? null : stat === 'up' ? (o.up ? 1 : 0) : stat === 'level' && o.level > 0 ? o.level : null),
        noData: 'no beacon',
        noDataFor: (o, stat) => (o === undefined ? 'no beacon was read' : `the beacon gave no ${stat}`),
        parse: (expr) => {
          if (expr.trim() === 'beacon.up') return { stat: 'up', op: '==', threshold: 1, unit: 'count' };
          const m = /^beacon\.level==(\d+)$/.exec(expr.trim());
          return m === null ? 'expected beacon.up or beacon.level==N' : { stat: 'level', op: '==', threshold: Number(m[1]), unit: 'count' };
        },
        judgeWithoutRequests: true,
      },
    ],
  };
}

const ms = (x: number): bigint => BigInt(Math.round(x * 1e6));
function timing(seq: number, failed = false): RequestTiming {
  return { seq, intendedNs: ms(100 + seq), sentNs: ms(100 + seq), headersNs: ms(105 + seq), endNs: ms(140 + seq), status: failed ? 500 : 200, requestId: null, tokenEvents: [{ atNs: ms(120 + seq), tokens: 3 }], outputTokens: 3, promptTokens: 5, tokenSource: 'usage', events: 2, error: failed ? { class: 'http_status', detail: 'HTTP 500' } : null, abortedAtEnd: false };
}

function run(failures: boolean[], shard: number) {
  const list = [...loadSections(), outcomes];
  const slos = parseSlos(['outcomes.failed_share<30%', 'errors.rate<=100%'], list);
  const c = new Collector({ measureStartNs: ms(100), measureStartEpochMs: 1_700_000_000_000, openLoop: false, slos, shard, sections: list });
  failures.forEach((f, i) => {
    c.onStart(ms(100 + i));
    c.onFinish(timing(i, f));
  });
  const meta = { ...sampleLoadResult().meta, config: { ...sampleLoadResult().meta.config, slos: slos.map((s) => s.expr) }, measureStartEpochMs: 1_700_000_000_000, measureEndEpochMs: 1_700_000_002_000 };
  return { list, result: buildResult({ meta, collector: c, slos, shard: { index: shard, count: 2 } }) };
}

describe('result sections (src/sections/section-contract.ts) through the load layer', () => {
  it('LOAD-SECTIONS: a section added to the list is collected, written, merged exactly, printed, tiled and judged by its SLO', () => {
    const a = run([false, false, false, true], 0);
    const b = run([true, false], 1);
    const figures = (r: object): unknown => (r as Record<string, unknown>)['outcomes'];
    expect(figures(a.result)).toEqual({ ok: 3, failed: 1, failedShare: 0.25 });
    expect(a.result.slos.find((s) => s.metric === 'outcomes')).toMatchObject({ observed: 0.25, passed: true });
    expect(b.result.slos.find((s) => s.metric === 'outcomes')).toMatchObject({ observed: 0.5, passed: false });
    const merged = mergeResults([a.result, b.result], 'merged', a.list);
    expect(figures(merged)).toEqual({ ok: 4, failed: 2, failedShare: 2 / 6 });
    expect(merged.slos.find((s) => s.metric === 'outcomes')).toMatchObject({ observed: 2 / 6, passed: false });
    expect(summaryTable(merged, a.list)).toContain('outcomes: 4 ok, 2 failed');
    expect(renderLoadReport(merged, a.list)).toMatch(/<section class="card" id="outcomes"><h2>Outcomes<\/h2>.*33%/s);
  });

  it('LOAD-SECTIONS: a run-record section (no per-request collect) is judged by its own SLO grammar even with no request finished, says why per stat, prints at the summary\'s end and tiles after the over-time charts', () => {
    const build = (b: Beacon | undefined, failures: boolean[]) => {
      const list = [...loadSections(), beacon(() => b)];
      const slos = parseSlos(['beacon.up', 'beacon.level==3'], list);
      const c = new Collector({ measureStartNs: ms(100), measureStartEpochMs: 1_700_000_000_000, openLoop: false, slos, shard: null, sections: list });
      failures.forEach((f, i) => {
        c.onStart(ms(100 + i));
        c.onFinish(timing(i, f));
      });
      const meta = { ...sampleLoadResult().meta, config: { ...sampleLoadResult().meta.config, slos: slos.map((s) => s.expr) }, measureStartEpochMs: 1_700_000_000_000, measureEndEpochMs: 1_700_000_002_000 };
      return { list, result: buildResult({ meta, collector: c, slos, shard: null }) };
    };
    const judged = (r: { slos: readonly { expr: string; observed: number | null; passed: boolean; noData?: string }[] }) => r.slos.filter((s) => s.expr.startsWith('beacon')).map((s) => [s.expr, s.observed, s.passed, s.noData]);
    // No measured request finished: the record is judged all the same.
    expect(judged(build({ level: 3, up: true }, []).result)).toEqual([['beacon.up', 1, true, undefined], ['beacon.level==3', 3, true, undefined]]);
    expect(judged(build({ level: 0, up: false }, []).result)).toEqual([['beacon.up', 0, false, undefined], ['beacon.level==3', null, false, 'the beacon gave no level']]);
    expect(judged(build(undefined, [false]).result)).toEqual([['beacon.up', null, false, 'no beacon was read'], ['beacon.level==3', null, false, 'no beacon was read']]);
    expect(() => parseSlos(['beacon.level<3'], [beacon(() => undefined)])).toThrow(/expected beacon.up or beacon.level==N/);
    const { list, result } = build({ level: 2, up: false }, [false, false]);
    expect('beacon' in result).toBe(true);
    const summary = summaryTable(result, list);
    expect(summary).toMatch(/\n\nbeacon: level 2, 0 warmup, 1 seconds\n$/);
    const page = renderLoadReport(result, list);
    expect(page).toContain('<a href="#beacon">Beacon</a>');
    expect(page.indexOf('id="beacon"')).toBeGreaterThan(page.indexOf('id="over-time"'));
    expect(page).toMatch(/Beacon seconds.*<h3>Is the beacon up\?<\/h3>.*badge tone-bad">disagree/s);
    expect(page).toContain('t-bad');
    expect(summaryTable(build(undefined, [false]).result, list)).not.toContain('beacon:');
  });

  it('LOAD-SECTIONS: a run record is read through the list: its line under the summary\'s first line and at the top of the report, the stop it records fails the run, and its window narrows the merge', () => {
    interface Log {
      who: string;
      halted: string | null;
      together: boolean;
    }
    const log: RunRecord<Log> = {
      key: 'log',
      line: (l) => `logged by ${l.who}`,
      stopped: (l) => l.halted,
      mergeWindow: (parts) => (parts.every((p) => p.record.together) ? { startMs: Math.max(...parts.map((p) => p.startMs)), endMs: Math.min(...parts.map((p) => p.endMs)), firstS: 1_700_000_001, endS: 1_700_000_002 } : null),
    };
    const records = [log as AnyRunRecord];
    const { result: a, list } = run([false, false], 0);
    const b = run([false], 1).result;
    const withLog = (r: typeof a, l: Log) => ({ ...r, log: l }) as typeof a;
    const summary = summaryTable(withLog(a, { who: 'shard 0', halted: null, together: true }), list, records).split('\n');
    expect(summary[1]).toBe('logged by shard 0');
    expect(renderLoadReport(withLog(a, { who: 'shard 0', halted: null, together: true }), list, records)).toContain('<p class="status status-neutral">logged by shard 0.</p>');
    const halted = withLog(a, { who: 'shard 0', halted: 'shard 1 died', together: true });
    expect(runFailure(halted, records)).toBe('shard 1 died');
    expect(summaryTable({ ...halted, interrupted: true }, list, records)).toMatch(/^iari load: FAILED: shard 1 died\niari load: .*\(STOPPED by the coordinator/);
    expect(renderLoadReport(halted, list, records)).toContain('STOPPED: shard 1 died');
    // Both carry it and say they ran together: the merge's window is the record's (one whole second).
    expect(mergeResults([withLog(a, { who: 'a', halted: null, together: true }), withLog(b, { who: 'b', halted: null, together: true })], 'm', list, records).throughput.windowS).toBe(1);
    expect(mergeResults([withLog(a, { who: 'a', halted: null, together: false }), withLog(b, { who: 'b', halted: null, together: true })], 'm', list, records).throughput.windowS).toBe(2);
    expect(mergeResults([withLog(a, { who: 'a', halted: null, together: true }), b], 'm', list, records).throughput.windowS).toBe(2);
    // Without the record in the list, nothing of it is read.
    expect(runFailure(halted, [])).toBeNull();
    expect(summaryTable(halted, list, [])).not.toContain('shard 1 died');
  });

  it('LOAD-SECTIONS: the live progress line asks the sections what the answers lack: embeddings answers show e2e and their inputs, chat answers ttft and tokens', () => {
    const line = (counters?: Record<string, number>): string => {
      const c = new Collector({ measureStartNs: ms(100), measureStartEpochMs: 1_700_000_000_000, openLoop: false, slos: [], shard: null });
      c.onStart(ms(100));
      c.onFinish({ ...timing(0), ...(counters === undefined ? {} : { extras: { cachedTokens: null, counters } }) });
      return progressLine(c, 1, { durationS: 10, requests: null });
    };
    expect(line({ inputs: 4, promptTokens: 40, dimensions: 64 })).toMatch(/ e2e p50 \S+ p99 \S+  inputs 4$/);
    expect(line()).toMatch(/ ttft p50 \S+ p99 \S+  tokens 3$/);
  });

  it('LOAD-SECTIONS: without the section in the list, nothing of it is written, merged, printed or known to --slo', () => {
    const a = run([false, true], 0);
    // A file whose SLOs name the section cannot be judged without it: the merge refuses it (exit 2).
    expect(() => mergeResults([a.result], 'merged')).toThrow(/unknown metric "outcomes"/);
    const merged = mergeResults([{ ...a.result, meta: { ...a.result.meta, config: { ...a.result.meta.config, slos: [] } } }], 'merged');
    expect('outcomes' in merged).toBe(false);
    expect(summaryTable(merged)).not.toContain('outcomes:');
    expect(renderLoadReport(merged)).not.toContain('id="outcomes"');
    expect(() => parseSlos(['outcomes.failed_share<30%'])).toThrow(/unknown metric "outcomes"/);
  });
});
