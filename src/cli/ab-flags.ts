// The flags of `iari load --ab URL_B [--ab-block D]` (src/load/ab-blocks.ts), taken out of argv
// before the load flags are parsed, and checked against the plan they run with.
import { normalizeBaseUrl } from '../client/base-url.ts';
import { readToken } from '../client/token.ts';
import { checkDuration } from '../duration.ts';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import type { LoadPlan } from '../load/plan/load-options.ts';
import { abPairs, MIN_AB_PAIRS } from '../load/search/ab-blocks.ts';

export interface AbFlags {
  /** Normalised base URL of the second server, ending in /v1. */
  baseUrlB: string;
  blockS: number;
  /** --ab-token-env NAME: where B's token is; without it B must be A's origin (the token goes nowhere else). */
  tokenEnvB: string | null;
}

export const AB_DEFAULT_DURATION = '60s';

function usage(message: string): HarnessError {
  return new HarnessError(HarnessErrorCode.USAGE, `iari load: ${message}`);
}

/** Removes --ab and --ab-block (as `--ab URL` or `--ab=URL`) from argv. */
export function takeAbFlags(argv: readonly string[]): { rest: string[]; ab: AbFlags | null } {
  const rest: string[] = [];
  let url: string | undefined;
  let block: string | undefined;
  let tokenEnv: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const eq = a.indexOf('=');
    const name = eq < 0 ? a : a.slice(0, eq);
    if (name !== '--ab' && name !== '--ab-block' && name !== '--ab-token-env') {
      rest.push(a);
      continue;
    }
    const value = eq < 0 ? argv[++i] : a.slice(eq + 1);
    if (value === undefined || value.startsWith('--')) throw usage(`${name} needs a value`);
    if (name === '--ab') url = value;
    else if (name === '--ab-block') block = value;
    else tokenEnv = value;
  }
  if (url === undefined) {
    if (block !== undefined || tokenEnv !== undefined) throw usage('--ab-block and --ab-token-env need --ab URL_B');
    return { rest, ab: null };
  }
  const baseUrlB = normalizeBaseUrl(url, 'iari load --ab').v1;
  const blockS = block === undefined ? 3 : checkDuration('iari load', '--ab-block', block, 1, 60) / 1000;
  // --duration is both sides together: 60 s (10 pairs of 3 s blocks) unless given.
  const timed = rest.some((a) => a === '--duration' || a.startsWith('--duration='));
  return { rest: timed ? rest : [...rest, '--duration', AB_DEFAULT_DURATION], ab: { baseUrlB, blockS, tokenEnvB: tokenEnv ?? null } };
}

/** What --ab cannot be combined with, whether the run holds enough pairs of blocks, and B's token. */
export function checkAbPlan(ab: AbFlags, plan: LoadPlan, env: NodeJS.ProcessEnv = process.env): { tokenB: string } {
  if (plan.baseUrl === null) throw usage('--ab compares two servers: give side A with --base-url (start two mocks with iari mock to try it)');
  if (plan.sweep || plan.findCapacity !== null || plan.repeat > 1 || plan.shard !== null || plan.requests !== null || plan.workloadPlan.trace !== undefined) {
    throw usage('--ab runs blocks of --duration against two servers: it cannot be combined with --sweep, --find-capacity, --repeat, --shard, --requests or --trace');
  }
  const pairs = abPairs(plan.durationS ?? 0, ab.blockS);
  if (pairs < MIN_AB_PAIRS) throw usage(`--ab needs at least ${MIN_AB_PAIRS} pairs of blocks: --duration ${plan.durationS ?? 0}s holds ${pairs} of --ab-block ${ab.blockS}s per side (give --duration ≥ ${2 * MIN_AB_PAIRS * ab.blockS}s)`);
  const sameOrigin = new URL(ab.baseUrlB).origin === new URL(plan.baseUrl).origin;
  if (!sameOrigin && plan.connection.headers.length > 0) throw usage('--header values may hold secrets of --base-url\'s origin: with --ab to another origin, leave them out');
  if (ab.tokenEnvB !== null) return { tokenB: readToken('iari load', { tokenEnv: ab.tokenEnvB }, env) };
  if (!sameOrigin || plan.token === null) throw usage(`--ab ${new URL(ab.baseUrlB).origin} is another origin than --base-url: name B's token with --ab-token-env NAME (it may name A's variable); A's token is never sent to another origin unprompted`);
  return { tokenB: plan.token };
}
