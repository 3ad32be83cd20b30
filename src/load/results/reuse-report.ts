import type { ConnectionReuse, ConnectionReuseReport, LoadResult } from './load-result.ts';
import type { ResultSection, SectionTile } from '../../sections/section-contract.ts';
import { sumCounts } from '../../sections/counts.ts';

/** Counts the measured requests that lost a connection reuse race, by how their retry ended (connection-reuse.ts). */
export class ReuseAcc {
  races = 0;
  ok = 0;
  failed = 0;
  abortedAtEnd = 0;

  add(outcome: 'ok' | 'failed' | 'abortedAtEnd'): void {
    this.races++;
    this[outcome]++;
  }
}

export function buildReuseReport(acc: ReuseAcc, policy: ConnectionReuse): ConnectionReuseReport {
  return { policy, races: acc.races, retried: { ok: acc.ok, failed: acc.failed, abortedAtEnd: acc.abortedAtEnd } };
}

/** Shards add their races; absent when no shard reported them (files written before the field existed). */
export function mergeReuseReports(parts: readonly (ConnectionReuseReport | undefined)[]): ConnectionReuseReport | undefined {
  const given = parts.filter((p): p is ConnectionReuseReport => p !== undefined);
  const first = given[0];
  if (first === undefined) return undefined;
  return { policy: first.policy, races: sumCounts(given, ['races'] as const).races, retried: sumCounts(given.map((r) => r.retried), ['ok', 'failed', 'abortedAtEnd'] as const) };
}

/** How the run used connections: `kept-alive connections reused` or `a new connection per request (--connection-reuse never)`. */
export function reusePolicyText(c: ConnectionReuseReport): string {
  return c.policy === 'never' ? 'a new connection per request (--connection-reuse never)' : 'kept-alive connections reused';
}

/** `187 reuse races (...): each sent once more ...`, or null without a race. */
export function racesText(c: ConnectionReuseReport): string | null {
  if (c.races === 0) return null;
  const aborted = c.retried.abortedAtEnd > 0 ? `, ${c.retried.abortedAtEnd} still in flight at the end` : '';
  return `${c.races} reuse race${c.races === 1 ? '' : 's'} (the server closed a kept-alive connection a request was written on, before any byte of the answer; not server errors): each sent once more on a fresh connection, ${c.retried.ok} answered, ${c.retried.failed} failed (counted in errors)${aborted}; each timed as one request from its intended send (--connection-reuse never avoids them)`;
}

/**
 * The summary's line about connections, or null when there is nothing to say (connections reused,
 * no race): `connections: 187 reuse races ...`.
 */
export function reuseLine(r: Pick<LoadResult, 'connectionReuse'>): string | null {
  const c = r.connectionReuse;
  if (c === undefined) return null;
  const races = racesText(c);
  if (races === null) return c.policy === 'never' ? `connections: ${reusePolicyText(c)}` : null;
  return `connections: ${reusePolicyText(c)}; ${races}`;
}

function reuseTile(c: ConnectionReuseReport): SectionTile {
  const races = racesText(c);
  return {
    id: 'connections',
    title: 'Connections',
    ...(races === null ? {} : { notes: [{ tone: 'warn' as const, text: `Connection reuse races: ${races}.` }] }),
    configRows: [['connections', `${reusePolicyText(c)}; ${c.races} reuse races`]],
  };
}

/** The `connectionReuse` section of load.json under --connection-reuse `policy` (default reuse). */
export function reuseSection(policy: ConnectionReuse = 'reuse'): ResultSection<ConnectionReuseReport, ReuseAcc> {
  return {
    key: 'connectionReuse',
    place: 'outcome',
    open: () => new ReuseAcc(),
    collect(acc, r) {
      if (r.timing.reuseRace === undefined || r.outcome === 'cancelled') return;
      acc.add(r.outcome === 'aborted' ? 'abortedAtEnd' : r.outcome);
    },
    build: (acc) => buildReuseReport(acc, policy),
    merge: (parts) => mergeReuseReports(parts),
    summary: (out) => [reuseLine({ connectionReuse: out }) ?? ''].filter((l) => l !== ''),
    tile: reuseTile,
    slos: [],
  };
}
