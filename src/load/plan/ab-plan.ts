// A/B in one run (`--ab URL_B`, a scenario's `search: {kind: ab}`): the second server, how requests
// are split between the two, and what it cannot be combined with; checked before any traffic with
// the other options (validateLoadOptions), named as the caller names them (flag or scenario path).
import { normalizeBaseUrl } from '../../client/base-url.ts';
import type { ConnectionOptions } from '../../client/connection-options.ts';
import { abPairs } from '../search/ab-blocks.ts';
import { checkChoice, checkDurationS, checkNumber, checkText, loadUsage, type LoadNames, type ShellLoadOptions } from './load-option-names.ts';

/** Fewest pairs of blocks an A/B run needs: with 5 or fewer the sign test has no 95% interval (compare/paired-differences.ts). */
export const MIN_AB_PAIRS = 6;
export const AB_DEFAULT_DURATION_S = 60;
export const AB_DEFAULT_BLOCK_S = 3;
export type AbAssign = NonNullable<ShellLoadOptions['abAssign']>;

export interface AbPlan {
  /** Normalised base URL of the second server, ending in /v1. */
  baseUrlB: string;
  /** blocks: one block's length (its ceiling with blockRequests); random: the length of the windows compared pair by pair. */
  blockS: number;
  /** blocks only: each block ends after this many measured requests (null: after blockS). */
  blockRequests: number | null;
  /** blocks: A B, B A, ... one side at a time; random: every request goes to A or B at random (seeded), both sides at once. */
  assign: AbAssign;
}

/** The A/B part of a plan, or null without one; `durationS` is the run's (default AB_DEFAULT_DURATION_S with A/B). */
export function validateAb(shell: ShellLoadOptions, names: LoadNames, run: { baseUrl: string | null; durationS: number | null; requests: boolean; shard: boolean; traced: boolean; engine: string | undefined }): AbPlan | null {
  const n = names.name;
  const usage = (message: string): ReturnType<typeof loadUsage> => loadUsage(names, message);
  if (shell.ab === undefined) {
    if (shell.abBlock !== undefined || shell.abBlockRequests !== undefined || shell.abAssign !== undefined) throw usage(`${n('abBlock')}, ${n('abBlockRequests')} and ${n('abAssign')} need ${n('ab')}`);
    return null;
  }
  const baseUrlB = normalizeBaseUrl(checkText(names, 'ab', shell.ab), names.who).v1;
  if (run.baseUrl === null) throw usage(`${n('ab')} compares two servers: give side A with ${n('baseUrl')} (start two mocks with iari mock to try it)`);
  if (shell.sweep === true || shell.findCapacity === true || shell.repeat !== undefined || run.shard || run.requests || run.traced) {
    throw usage(`${n('ab')} runs ${n('duration')} against two servers: it cannot be combined with ${n('sweep')}, ${n('findCapacity')}, ${n('repeat')}, ${n('shard')}, ${n('requests')} or ${n('trace')}`);
  }
  const assign = checkChoice(names, 'abAssign', shell.abAssign ?? 'blocks');
  const blockS = shell.abBlock === undefined ? AB_DEFAULT_BLOCK_S : checkDurationS(names, 'abBlock', shell.abBlock, 1, 60);
  const blockRequests = shell.abBlockRequests === undefined ? null : checkNumber(names, 'abBlockRequests', shell.abBlockRequests);
  if (blockRequests !== null && assign === 'random') throw usage(`${n('abBlockRequests')} sizes the blocks of ${n('abAssign')} blocks; random assignment compares windows of ${n('abBlock')}`);
  if (assign === 'random' && run.engine === 'autocannon') throw usage(`${n('abAssign')} random routes each request on the undici engine: leave out ${n('engine')} autocannon`);
  const durationS = run.durationS ?? AB_DEFAULT_DURATION_S;
  const pairs = abPairs(durationS, blockS, assign);
  if (pairs < MIN_AB_PAIRS) {
    const need = (assign === 'random' ? 1 : 2) * MIN_AB_PAIRS * blockS;
    throw usage(`${n('ab')} needs at least ${MIN_AB_PAIRS} pairs of blocks: ${n('duration')} ${durationS}s holds ${pairs} of ${n('abBlock')} ${blockS}s${assign === 'random' ? '' : ' per side'} (give ${n('duration')} ≥ ${need}s)`);
  }
  return { baseUrlB, blockS, blockRequests, assign };
}

/**
 * B's token: the one given for B (`--ab-token-env`, the library's hook), else A's when B is on A's
 * origin. A's token and --header values are never sent to another origin unasked.
 */
export function abToken(ab: AbPlan, a: { baseUrl: string | null; token: string | null; connection: ConnectionOptions }, names: LoadNames, tokenB: string | null): string {
  const usage = (message: string): ReturnType<typeof loadUsage> => loadUsage(names, message);
  const originB = new URL(ab.baseUrlB).origin;
  const sameOrigin = a.baseUrl !== null && originB === new URL(a.baseUrl).origin;
  if (!sameOrigin && a.connection.headers.length > 0) throw usage(`header values may hold secrets of ${names.name('baseUrl')}'s origin: with ${names.name('ab')} to another origin, leave them out`);
  if (tokenB !== null) return tokenB;
  if (!sameOrigin || a.token === null) throw usage(`${names.name('ab')} ${originB} is another origin than ${names.name('baseUrl')}: name B's token (iari load --ab-token-env NAME, which may name A's variable; runScenario's abTokenB option); A's token is never sent to another origin unprompted`);
  return a.token;
}
