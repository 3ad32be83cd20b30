import { decodeHistogram, newHistogram, record, summarize, type Histogram } from './hdr.ts';
import type { TurnReport } from './load-result.ts';
import type { ResultSection, SectionTile } from '../../sections/section-contract.ts';
import { tileMs, tileNum, tileUs } from '../../sections/tile-format.ts';

/** Turn indexes reported one by one; later turns are pooled into the last row ("16+"). */
export const TURN_ROWS = 16;

interface TurnAcc {
  requests: number;
  ttft: Histogram;
  prompt: Histogram;
  cachedTokens: number;
  cachedReported: number;
}

const acc = (): TurnAcc => ({ requests: 0, ttft: newHistogram(), prompt: newHistogram(), cachedTokens: 0, cachedReported: 0 });

/** Per-turn figures of the successful measured requests of a conversation workload: TTFT and prompt tokens by turn. */
export class TurnsAcc {
  readonly rows: TurnAcc[] = [];

  add(turn: number, ttftUs: number | null, promptTokens: number, cached: number | null): void {
    const i = Math.min(turn, TURN_ROWS - 1);
    while (this.rows.length <= i) this.rows.push(acc());
    const r = this.rows[i] as TurnAcc;
    r.requests++;
    if (ttftUs !== null) record(r.ttft, ttftUs);
    if (promptTokens > 0) record(r.prompt, promptTokens);
    if (cached !== null) {
      r.cachedTokens += cached;
      r.cachedReported++;
    }
  }
}

export function buildTurnReport(t: TurnsAcc, o: Omit<TurnReport, 'byTurn'>): TurnReport | undefined {
  if (t.rows.length === 0) return undefined;
  return {
    ...o,
    byTurn: t.rows.map((r, i) => ({
      turn: i + 1,
      pooled: i === TURN_ROWS - 1,
      requests: r.requests,
      ttft: r.ttft.totalCount === 0 ? null : summarize(r.ttft, 'us'),
      promptTokens: r.prompt.totalCount === 0 ? null : summarize(r.prompt, 'us'),
      cachedTokensMean: r.cachedReported === 0 ? null : Math.round((r.cachedTokens / r.cachedReported) * 10) / 10,
    })),
  };
}

/** Adds the per-turn figures of several shards (histograms bucket by bucket). */
export function mergeTurnReports(reports: readonly (TurnReport | undefined)[]): TurnReport | undefined {
  const present = reports.filter((r): r is TurnReport => r !== undefined);
  const first = present[0];
  if (first === undefined) return undefined;
  const t = new TurnsAcc();
  for (const r of present) {
    for (const row of r.byTurn) {
      const i = row.turn - 1;
      while (t.rows.length <= i) t.rows.push(acc());
      const a = t.rows[i] as TurnAcc;
      a.requests += row.requests;
      if (row.ttft !== null) a.ttft.add(decodeHistogram(row.ttft.hdr));
      if (row.promptTokens !== null) a.prompt.add(decodeHistogram(row.promptTokens.hdr));
    }
  }
  return buildTurnReport(t, { loop: first.loop, thinkTimeMs: first.thinkTimeMs, conversationsStarted: present.reduce((s, r) => s + r.conversationsStarted, 0), conversationsCompleted: present.reduce((s, r) => s + r.conversationsCompleted, 0) });
}

/** Summary lines: the loop's meaning, then TTFT and prompt tokens by turn. */
export function turnLines(r: TurnReport | undefined, fmt: (us: number | null | undefined) => string): string[] {
  if (r === undefined) return [];
  const out = [
    `conversations: ${r.conversationsStarted} started, ${r.conversationsCompleted} completed; ${r.loop === 'closed' ? 'closed loop: each slot holds one conversation from its first turn to its last' : 'open loop: the arrivals are conversations, each later turn sent when the previous answer ended'}${r.thinkTimeMs > 0 ? `, think time ${r.thinkTimeMs} ms` : ''}`,
  ];
  for (const row of r.byTurn) {
    out.push(`  turn ${row.turn}${row.pooled ? '+' : ''}: ${row.requests} requests, TTFT p50 ${fmt(row.ttft?.percentiles.p50)} p99 ${fmt(row.ttft?.percentiles.p99)}, prompt tokens mean ${row.promptTokens === null ? '-' : row.promptTokens.mean.toFixed(1)}${row.cachedTokensMean === null ? '' : `, cached mean ${row.cachedTokensMean}`}`);
  }
  return out;
}

function turnsTile(t: TurnReport): SectionTile {
  const point = (f: (row: TurnReport['byTurn'][number]) => number | null) =>
    t.byTurn.flatMap((row) => {
      const y = f(row);
      return y === null ? [] : [{ x: row.turn, y }];
    });
  return {
    id: 'turns',
    title: 'Conversations by turn',
    caption: `${t.loop === 'closed' ? 'Closed loop: a conversation holds its slot until its last turn' : 'Open loop: arrivals are conversations'}; think time ${tileNum(t.thinkTimeMs, 0)} ms; ${tileNum(t.conversationsStarted, 0)} conversations started, ${tileNum(t.conversationsCompleted, 0)} completed.`,
    table: {
      head: ['turn', 'requests', 'TTFT p50', 'TTFT p95', 'prompt tokens mean', 'prompt tokens p95', 'cached tokens mean'],
      // Prompt tokens are kept in the histogram's `us` slot: the values are token counts.
      rows: t.byTurn.map((row) => [`${row.turn}${row.pooled ? '+' : ''}`, tileNum(row.requests, 0), tileUs(row.ttft?.percentiles.p50), tileUs(row.ttft?.percentiles.p95), tileNum(row.promptTokens?.mean, 1), tileNum(row.promptTokens?.percentiles.p95, 0), tileNum(row.cachedTokensMean, 1)]),
      numeric: [1, 2, 3, 4, 5, 6],
    },
    charts: [
      {
        kind: 'lines',
        title: 'TTFT by turn',
        series: [
          { name: 'TTFT p50', points: point((row) => tileMs(row.ttft, 'p50')) },
          { name: 'TTFT p95', points: point((row) => tileMs(row.ttft, 'p95')) },
        ],
        xLabel: 'turn',
        xIntegers: true,
        yLabel: 'ms',
        format: 'ms',
      },
      {
        kind: 'lines',
        title: 'Prompt tokens by turn',
        series: [
          { name: 'prompt tokens (mean)', points: point((row) => row.promptTokens?.mean ?? null) },
          { name: 'cached tokens (mean)', points: point((row) => row.cachedTokensMean) },
        ],
        xLabel: 'turn',
        xIntegers: true,
        yLabel: 'tokens',
        format: 'plain',
      },
    ],
  };
}

/**
 * The `turns` section of load.json (conversation workloads): `conversations` says, when the run
 * ends, how the loop treated them and how many started and completed; absent: no conversations.
 */
export function turnSection(conversations?: () => Omit<TurnReport, 'byTurn'>): ResultSection<TurnReport, TurnsAcc> {
  return {
    key: 'turns',
    place: 'workload',
    open: () => new TurnsAcc(),
    collect(acc, r) {
      const turn = r.asked?.turn;
      if (r.outcome === 'ok' && turn !== undefined) acc.add(turn, r.ttftUs, r.timing.promptTokens, r.timing.extras?.cachedTokens ?? null);
    },
    build: (acc) => (conversations === undefined ? undefined : buildTurnReport(acc, conversations())),
    merge: (parts) => mergeTurnReports(parts),
    summary: (out, fmt) => turnLines(out, fmt.us),
    tile: turnsTile,
    slos: [],
  };
}
