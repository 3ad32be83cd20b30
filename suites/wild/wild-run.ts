import { startMockServer, type MockServer } from '../../mock-server/index.ts';
import { catalog } from '../../src/checks/runner/catalog.ts';
import type { CheckDef, CheckOutcome } from '../../src/checks/context/check-types.ts';
import { createCheckContext } from '../../src/checks/context/check-context.ts';
import { runChecksInProcess } from '../../src/checks/runner/run-catalog.ts';
import type { LoadedExchange } from './corpus.ts';
import { startReplayServer, type ReplayServer } from './replay-server.ts';

/** The bundled mock as the replay server's upstream: faithful, no rate limits, no latency. */
export function startWildMock(): Promise<MockServer> {
  return startMockServer({ seed: 7, ttftMs: 0, itlMs: 0, jitterMs: 0, limits: false });
}

export function startReplayFor(mock: MockServer, exchanges: readonly LoadedExchange[]): Promise<ReplayServer> {
  return startReplayServer({
    exchanges,
    upstream: mock.origin,
    validTokens: [mock.tokens.default, ...Object.values(mock.tokens.byAccount)],
    listedModels: mock.admin.models().available,
  });
}

/** The checks that decide at least one of the exchange's requirement IDs. */
export function checksFor(ex: LoadedExchange): CheckDef[] {
  const ids = new Set(Object.keys(ex.verdicts));
  return catalog.filter((c) => c.ids.some((id) => ids.has(id)));
}

export interface WildRun {
  outcomes: Map<string, CheckOutcome>;
  /** How many requests the recording answered (0 means the checks never hit the recorded route). */
  served: number;
}

/**
 * Runs iari's own checks (the library form of `iari test --only IDS`) against a replay server
 * that serves this exchange and forwards everything else to `mock`, as an external target.
 */
export async function judgeExchange(mock: MockServer, ex: LoadedExchange): Promise<WildRun> {
  const replay = await startReplayFor(mock, [ex]);
  try {
    const second = mock.tokens.byAccount['acct_team'];
    const ctx = createCheckContext({
      root: replay.origin,
      token: mock.tokens.default,
      ...(second === undefined ? {} : { secondToken: second }),
      seed: 7,
      target: 'external',
      includeLimits: false,
    });
    const { outcomes } = await runChecksInProcess(ctx, checksFor(ex));
    return { outcomes, served: replay.served(ex.id) };
  } finally {
    await replay.close();
  }
}

/** One line per outcome, for messages and the calibration table. */
export function describeOutcome(o: CheckOutcome | undefined): string {
  if (o === undefined) return 'absent';
  if (o.verdict === 'fail' || o.verdict === 'non-strict') return `${o.verdict}: ${o.failures.map((f) => f.message).join(' | ')}`;
  if (o.verdict === 'informational') return `informational: ${o.note}`;
  if (o.verdict === 'skipped') return `skipped: ${o.reason}`;
  return o.verdict;
}
