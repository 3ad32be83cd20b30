// The mock's receipt chains, one per account: each chain's Mandate and actor key (derived from the
// seed), the window of Receipts kept in memory (as JSON text), its head, its clock and its open
// gates, and the views GET /v1/receipts lists. What goes into each Receipt, and signing it, is
// receipt-issuer.ts's; this file only keeps what was issued.
import { createHash } from 'node:crypto';
import { HarnessError, HarnessErrorCode } from '../src/errors.ts';
import { digestOf, Ed25519Key } from '../src/receipts/index.ts';
import type { Act, Decision, Receipt, SealedReceipt } from '../src/receipts/index.ts';
import type { ReceiptChainView } from './receipt-hooks.ts';
import type { LedgerEntry } from './receipt-ledger.ts';

/** Receipts kept in memory per chain by default: about 9 MB per account at 0.9 KB each. */
export const DEFAULT_RECEIPT_RETENTION = 10_000;

export type Mandate = ReceiptChainView['mandate'];

export interface OpenGate {
  act: Act;
  decision: Decision;
  context: string | undefined;
}

export interface Chain {
  account: string;
  mandate: Mandate;
  actorKey: Ed25519Key;
  /**
   * The Receipts as JSON text: about 35% smaller than the objects, and nothing for the GC to trace.
   * Only the last `retention` are listed: those before `start` are dropped (compacted away in batches).
   */
  receipts: string[];
  start: number;
  /** Receipts of this chain no longer in memory (the oldest ones). */
  omitted: number;
  head: string | undefined;
  lastIat: number;
  open: Map<string, OpenGate>;
}

export function derivedSeed(label: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(`iari-mock/${label}`).digest());
}

function shortId(label: string): string {
  return createHash('sha256').update(`iari-mock/${label}`).digest('hex').slice(0, 24);
}

export class ReceiptChains {
  readonly #seed: string;
  readonly #retention: number;
  readonly #chains = new Map<string, Chain>();
  /** Receipts issued under receipt-cross-account-copy: listed in every other account's chain too. */
  readonly #leaked: string[] = [];
  /** Accounts that made a request under receipt-list-without-grant-id: their list's mandate lacks grant_id from then on. */
  readonly #grantHidden = new Set<string>();

  constructor(seed: string, retention = DEFAULT_RECEIPT_RETENTION) {
    this.#seed = seed;
    this.#retention = Math.max(1, retention);
  }

  of(account: string): Chain {
    let chain = this.#chains.get(account);
    if (chain === undefined) {
      const seed = this.#seed;
      const actorKey = Ed25519Key.fromSeed(derivedSeed(`actor/${seed}/${account}`));
      chain = {
        account,
        mandate: { id: `mnd_${shortId(`mandate/${seed}/${account}`)}`, grant_id: `grant_${shortId(`grant/${seed}/${account}`)}`, actor: actorKey.keyref },
        actorKey,
        receipts: [...this.#leaked],
        start: 0,
        omitted: 0,
        head: undefined,
        lastIat: 0,
        open: new Map(),
      };
      this.#chains.set(account, chain);
    }
    return chain;
  }

  /** Appends an issued (or replayed) Receipt to its chain: the window, the head, the clock. */
  record(chain: Chain, sealed: SealedReceipt, json: string): void {
    chain.receipts.push(json);
    if (chain.receipts.length - chain.start > this.#retention) {
      chain.start++;
      chain.omitted++;
      // Dropped texts are released in batches, so keeping the window costs O(1) per Receipt.
      if (chain.start >= this.#retention) {
        chain.receipts = chain.receipts.slice(chain.start);
        chain.start = 0;
      }
    }
    chain.head = sealed.digest;
    // A Receipt broken on purpose (receipt-schema-string-iat) must not move the clock of the chain.
    if (Number.isSafeInteger(sealed.receipt.iat)) chain.lastIat = Math.max(chain.lastIat, sealed.receipt.iat);
  }

  /** Fault receipt-cross-account-copy: the Receipt is listed in every other account's chain, present and future. */
  leak(from: Chain, json: string): void {
    this.#leaked.push(json);
    for (const other of this.#chains.values()) if (other !== from) other.receipts.push(json);
  }

  /** Fault receipt-list-without-grant-id: this account's list omits the Mandate's grant_id from now on. */
  hideGrant(account: string): void {
    this.#grantHidden.add(account);
  }

  view(account: string): ReceiptChainView {
    const chain = this.of(account);
    const data = chain.receipts.slice(chain.start).map((json) => JSON.parse(json) as unknown);
    return { mandate: this.#listedMandate(chain) as Mandate, head: chain.head ?? null, ...(chain.omitted > 0 ? { omitted: chain.omitted } : {}), data };
  }

  json(account: string): string {
    const chain = this.of(account);
    // The stored texts are JSON.stringify output, so they are what parse + stringify would give back.
    const omitted = chain.omitted > 0 ? `"omitted":${chain.omitted},` : '';
    const kept = chain.start === 0 ? chain.receipts : chain.receipts.slice(chain.start);
    return `{"object":"list","mandate":${JSON.stringify(this.#listedMandate(chain))},"head":${JSON.stringify(chain.head ?? null)},${omitted}"data":[${kept.join(',')}]}`;
  }

  /** Accounts that have a chain, in order of first Receipt. */
  accounts(): string[] {
    return [...this.#chains.keys()];
  }

  all(): IterableIterator<Chain> {
    return this.#chains.values();
  }

  /** Rebuilds one ledger line into its chain (its window, head and open gates), as the ledger is read. */
  replay(entry: LedgerEntry, issuerKeyref: string, path: string): void {
    const receipt = entry.receipt as unknown as Receipt;
    const chain = this.of(entry.account);
    if (receipt.iss !== issuerKeyref || entry.mandate !== chain.mandate.id) {
      throw new HarnessError(HarnessErrorCode.CONFIG_INVALID, `ledger ${path} was written by a mock with another seed (receipt at byte offset ${entry.offset})`, {
        hint: 'restart with the same --seed, or use a new --ledger file',
      });
    }
    const digest = digestOf(receipt);
    this.record(chain, { receipt, digest }, JSON.stringify(receipt));
    if (receipt.gate !== undefined) chain.open.delete(receipt.gate);
    else if (receipt.outcome === undefined && receipt.decision.result === 'allowed') {
      chain.open.set(digest, { act: receipt.act, decision: receipt.decision, context: receipt.context });
    }
  }

  #listedMandate(chain: Chain): Partial<Mandate> {
    return this.#grantHidden.has(chain.account) ? { id: chain.mandate.id, actor: chain.mandate.actor } : { ...chain.mandate };
  }
}
