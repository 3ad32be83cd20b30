import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../mock-server/index.ts';
import { run as reportCommand } from '../../src/cli/report-command.ts';
import { writeReports } from '../../src/cli/load-command.ts';
import { decodeHistogram, newHistogram, record } from '../../src/load/results/hdr.ts';
import type { LoadResult, RequestRecord } from '../../src/load/results/load-result.ts';
import { mergeResults } from '../../src/load/results/merge.ts';
import { runLoadConfig } from '../../src/load/run-load.ts';
import { parseSlos } from '../../src/load/results/slo.ts';
import { createRedactor } from '../../src/report/redact.ts';
import { loadConfig, startLoadMock } from './load-fixtures.ts';

describe('sharded runs merge exactly', () => {
  let mock: MockServer;
  let dir: string;
  const shards: { result: LoadResult; records: RequestRecord[] }[] = [];
  beforeAll(async () => {
    mock = await startLoadMock({ ttftMs: 20, itlMs: 4, completionTokens: 6 });
    dir = mkdtempSync(join(tmpdir(), 'iari-shards-'));
    // The merge is judged here, not the machine: a TTFT bound a loaded CI machine cannot break.
    const sloExprs = ['ttft.p99<30s', 'errors.rate<0.01'];
    // Four shards of one open-loop run, at the same time against one mock (as four pods would).
    const runs = await Promise.all(
      [0, 1, 2, 3].map((index) =>
        runLoadConfig(
          loadConfig(mock, { kind: 'open', rate: 40, arrival: 'poisson' }, { runId: `shard${index}`, durationS: 1.5, seed: 3, shard: { index, count: 4 }, slos: parseSlos(sloExprs), sloExprs }),
        ),
      ),
    );
    shards.push(...runs);
    runs.forEach((r, i) => writeReports({ report: join(dir, `shard${i}`) }, r.result, r.records, `shard${i}`, createRedactor([])));
  });
  afterAll(async () => {
    await mock.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('merged histograms equal histograms built from every request of every shard, and counts add up', () => {
    const merged = mergeResults(shards.map((s) => s.result), 'merged');
    const all = shards.flatMap((s) => s.records).filter((r) => r.phase === 'measure');
    expect(merged.counts.finished).toBe(all.length);
    expect(merged.counts.ok).toBe(all.filter((r) => r.error === null).length);
    expect(merged.counts.outputTokens).toBe(all.filter((r) => r.error === null).reduce((a, r) => a + r.outputTokens, 0));
    for (const [metric, field] of [['ttft', 'ttftUs'], ['e2e', 'e2eUs'], ['ttfb', 'ttfbUs']] as const) {
      const expected = newHistogram();
      for (const r of all) if (r.error === null && r[field] !== null) record(expected, r[field]!);
      const got = decodeHistogram(merged.metrics[metric]!.hdr);
      expect(got.totalCount).toBe(expected.totalCount);
      for (const p of [50, 90, 95, 99, 99.9]) expect(got.getValueAtPercentile(p)).toBe(expected.getValueAtPercentile(p));
    }
    // The mock served exactly the requests the shards report (priming excluded).
    const served = all.filter((r) => r.requestId !== null && mock.sendLog.get(r.requestId) !== undefined).length;
    expect(served).toBe(all.length);
    expect(merged.meta.mode).toMatchObject({ kind: 'open', rate: 40 });
    expect(merged.timeslices.reduce((a, t) => a + t.finished, 0)).toBe(merged.counts.finished);
    expect(merged.mergedFrom?.map((m) => m.shard?.index).sort()).toEqual([0, 1, 2, 3]);
    expect(merged.slos.map((s) => s.expr)).toEqual(['ttft.p99<30s', 'errors.rate<0.01']);
  });

  it('iari report merge writes the merged load.json, requests.ndjson and report.html from the shard directories', async () => {
    const out = join(dir, 'merged');
    const code = await reportCommand(['merge', ...[0, 1, 2, 3].map((i) => join(dir, `shard${i}`)), '--report', out, '--json']);
    const merged = JSON.parse(readFileSync(join(out, 'load.json'), 'utf8')) as LoadResult;
    expect(code, JSON.stringify({ slos: merged.slos, errors: merged.errors, counts: merged.counts })).toBe(0);
    expect(merged.counts.finished).toBe(shards.reduce((a, s) => a + s.result.counts.finished, 0));
    const lines = readFileSync(join(out, 'requests.ndjson'), 'utf8').trim().split('\n');
    expect(lines.length).toBe(shards.reduce((a, s) => a + s.records.length, 0));
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('<html');
  });

  it('refuses to merge the same shard twice', () => {
    const one = shards[0]!.result;
    expect(() => mergeResults([one, one], 'x')).toThrow(/appears twice/);
  });
});
