// The mock's receipt issuer: one Mandate chain per account, a gate Receipt for every chat request
// that passes validation and an outcome Receipt paired to every allowed gate, signed with the
// service's Ed25519 key (deterministic from the seed). Canonical bytes, digests, ids and signatures
// all come from the receipt library (src/receipts/); this file only decides what goes into each
// Receipt, links it (prev) and applies the receipt faults of faults-receipts.ts.
import { createHash } from 'node:crypto';
import { HarnessError, HarnessErrorCode } from '../src/errors.ts';
import { digestOf, Ed25519Key, newReceiptId, PROTO, sealReceipt, sealReceiptText, signAct } from '../src/receipts/index.ts';
import type { Act, Budget, Decision, Outcome, Receipt, SealedReceipt, UnsignedReceipt } from '../src/receipts/index.ts';
import { ReceiptFault } from './faults-receipts.ts';
import { keysWithFaults, ReceiptIssuerFault, sealWithFaults, type MutationContext } from './receipt-fault-mutations.ts';
import type { GateDecision, GateInput, OutcomeInput, ReceiptChainView, ReceiptIssuer, ReceiptKeysView } from './receipt-hooks.ts';
import { openReceiptLedger, type LedgerEntry, type LedgerSyncMode, type ReceiptLedger } from './receipt-ledger.ts';

export interface ReceiptIssuerOptions {
  /** Seed of the service key, the actor keys and the Mandate ids (default 0). */
  seed?: number | string;
  /** Durable JSONL ledger file; a restart continues the chains it holds. */
  ledger?: string;
  ledgerSync?: LedgerSyncMode;
  /** Published service_id (D-RCPT-06: default the issuer's keyref). */
  serviceId?: string;
  /** Conformance level of the Receipts issued: 2 adds actor_sig, 3 also context (default 1). */
  level?: 1 | 2 | 3;
  /** Clock in integer seconds (default: wall clock). */
  now?: () => number;
  /** Receipt id factory (default: the library's "rcpt_" + UUIDv7). */
  nextId?: () => string;
  /** Ledger warnings (torn tail cut, open gates closed on restart); default stderr. */
  onWarning?: (message: string) => void;
  /**
   * Receipts kept in memory per chain (default 10,000): older ones live only in the ledger file
   * when there is one, else only the chain's head and counts are kept. GET /v1/receipts lists the
   * kept ones and says how many it omits (docs/mock-receipts.md, Memory).
   */
  retention?: number;
}

/** Receipts kept in memory per chain by default: about 9 MB per account at 0.9 KB each. */
export const DEFAULT_RECEIPT_RETENTION = 10_000;

export interface MockReceiptIssuer extends ReceiptIssuer {
  readonly issuerKeyref: string;
  readonly serviceId: string;
  readonly level: 1 | 2 | 3;
  /** `faults` selects receipt-keys-mismatch for this call. */
  keys(faults?: ReadonlySet<string>): ReceiptKeysView;
  chain(account: string): ReceiptChainView;
  chainJson(account: string): string;
  /** Accounts that have a chain, in order of first Receipt. */
  accounts(): string[];
  /** Flushes nothing (every append is already durable) and releases the ledger. */
  close(): void;
}

type Mandate = ReceiptChainView['mandate'];

interface OpenGate {
  act: Act;
  decision: Decision;
  context: string | undefined;
}

interface Chain {
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

const NO_FAULTS: ReadonlySet<string> = new Set();

function derivedSeed(label: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(`iari-mock/${label}`).digest());
}

function shortId(label: string): string {
  return createHash('sha256').update(`iari-mock/${label}`).digest('hex').slice(0, 24);
}

/** Spec, Receipt decision: reason "required when result is denied"; subcode and prose "required when reason is PROTO_DENY_POLICY". */
function decisionOf(input: GateDecision, faults: ReadonlySet<string>): Decision {
  let decision: Decision;
  if (input.result === 'allowed') decision = { result: 'allowed' };
  else if (faults.has(ReceiptFault.denialWithoutReason)) decision = { result: 'denied' };
  else {
    decision = { result: 'denied', reason: input.reason };
    if (input.subcode !== undefined && !faults.has(ReceiptFault.policyDenialWithoutSubcode)) decision.subcode = input.subcode;
    if (input.prose !== undefined) decision.prose = input.prose;
  }
  if (faults.has(ReceiptFault.unknownDecisionMember)) (decision as Decision & { note?: string }).note = 'issued by the iari mock';
  return decision;
}

/** Level 3: the Context Envelope of a chat request is {messages, tools?} of its body (docs/mock-receipts.md). */
function contextEnvelopeOf(body: unknown): Record<string, unknown> {
  const source = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const envelope: Record<string, unknown> = { messages: Array.isArray(source['messages']) ? source['messages'] : [] };
  if (Array.isArray(source['tools'])) envelope['tools'] = source['tools'];
  return envelope;
}

function usd(amount: string): Budget {
  return { amount, unit: 'USD' };
}

export function createReceiptIssuer(options: ReceiptIssuerOptions = {}): MockReceiptIssuer {
  const seed = String(options.seed ?? 0);
  const level = options.level ?? 1;
  const issuer = Ed25519Key.fromSeed(derivedSeed(`issuer/${seed}`));
  const serviceId = options.serviceId ?? issuer.keyref;
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  const nextId = options.nextId ?? (() => newReceiptId());
  const chains = new Map<string, Chain>();
  const otherIssuer = Ed25519Key.fromSeed(derivedSeed(`advertised/${seed}`));
  // Receipts issued under receipt-cross-account-copy: listed in every other account's chain too.
  const leaked: string[] = [];
  // Accounts that made a request under receipt-list-without-grant-id: their list's mandate lacks grant_id from then on.
  const grantHidden = new Set<string>();
  const listedMandate = (chain: Chain): Partial<Mandate> => (grantHidden.has(chain.account) ? { id: chain.mandate.id, actor: chain.mandate.actor } : { ...chain.mandate });
  // x-receipt-gate values given out under receipt-wrong-gate-header, mapped back to the real gate.
  const aliases = new Map<string, string>();

  const chainOf = (account: string): Chain => {
    let chain = chains.get(account);
    if (chain === undefined) {
      const actorKey = Ed25519Key.fromSeed(derivedSeed(`actor/${seed}/${account}`));
      chain = {
        account,
        mandate: { id: `mnd_${shortId(`mandate/${seed}/${account}`)}`, grant_id: `grant_${shortId(`grant/${seed}/${account}`)}`, actor: actorKey.keyref },
        actorKey,
        receipts: [...leaked],
        start: 0,
        omitted: 0,
        head: undefined,
        lastIat: 0,
        open: new Map(),
      };
      chains.set(account, chain);
    }
    return chain;
  };

  const retention = Math.max(1, options.retention ?? DEFAULT_RECEIPT_RETENTION);
  const record = (chain: Chain, sealed: SealedReceipt, json: string) => {
    chain.receipts.push(json);
    if (chain.receipts.length - chain.start > retention) {
      chain.start++;
      chain.omitted++;
      // Dropped texts are released in batches, so keeping the window costs O(1) per Receipt.
      if (chain.start >= retention) {
        chain.receipts = chain.receipts.slice(chain.start);
        chain.start = 0;
      }
    }
    chain.head = sealed.digest;
    // A Receipt broken on purpose (receipt-schema-string-iat) must not move the clock of the chain.
    if (Number.isSafeInteger(sealed.receipt.iat)) chain.lastIat = Math.max(chain.lastIat, sealed.receipt.iat);
  };

  const mutationContextOf = (chain: Chain): MutationContext => ({
    issuer,
    otherIssuer,
    serviceId,
    actorKey: chain.actorKey,
    grantId: chain.mandate.grant_id,
    lastReceipt: () => {
      const last = chain.receipts.at(-1);
      return last === undefined ? undefined : (JSON.parse(last) as Record<string, unknown>);
    },
  });

  let ledger: ReceiptLedger | null = null;

  const append = (chain: Chain, parts: Omit<UnsignedReceipt, 'proto' | 'type' | 'id' | 'iss' | 'iat' | 'actor' | 'prev'>, faults: ReadonlySet<string>, gateFaults: boolean): SealedReceipt => {
    let iat = Math.max(now(), chain.lastIat);
    // Fault receipt-iat-backwards: one second before the previous Receipt (only once there is one).
    if (gateFaults && faults.has(ReceiptFault.iatBackwards) && chain.head !== undefined) iat = chain.lastIat - 1;
    let prev = chain.head;
    if (gateFaults && faults.has(ReceiptFault.brokenPrev) && prev !== undefined) prev = digestOf({ 'not-a-receipt': prev });
    const unsigned: UnsignedReceipt = {
      proto: PROTO,
      type: 'receipt',
      id: nextId(),
      iss: issuer.keyref,
      iat,
      ...(prev === undefined ? {} : { prev }),
      actor: chain.actorKey.keyref,
      ...parts,
    };
    let sealed: SealedReceipt;
    let json: string;
    if (faults.size === 0) {
      // The faithful path: the JCS text made for the digest is also the stored JSON.
      const text = sealReceiptText(unsigned, issuer);
      sealed = text;
      json = text.text;
    } else {
      sealed = sealWithFaults(unsigned, gateFaults ? (parts.decision.result === 'denied' ? 'denial' : 'gate') : 'outcome', faults, mutationContextOf(chain));
      if (gateFaults && faults.has(ReceiptFault.badSignature)) {
        // A genuine issuer signature, but over other bytes: well-formed, canonical, and wrong.
        const other = sealReceipt({ ...unsigned, iat: unsigned.iat + 1 }, issuer);
        const receipt: Receipt = { ...sealed.receipt, sig: other.receipt.sig };
        sealed = { receipt, digest: digestOf(receipt) };
      }
      json = JSON.stringify(sealed.receipt);
    }
    // Durable before the caller answers (issue 6: "a receipt is on disk before the response that it records is finished").
    ledger?.appendSerialized(chain.account, chain.mandate.id, json);
    record(chain, sealed, json);
    if (faults.has(ReceiptIssuerFault.crossAccountCopy)) {
      leaked.push(json);
      for (const other of chains.values()) if (other !== chain) other.receipts.push(json);
    }
    return sealed;
  };

  const appendOutcome = (chain: Chain, gateDigest: string, gate: OpenGate, outcome: Outcome, cost: Budget, faults: ReadonlySet<string>): void => {
    let act = gate.act;
    if (faults.has(ReceiptFault.pairActMismatch)) {
      act = { ...act, resource: `${act.resource}#other` };
      if (level >= 2) act = signAct(act, chain.actorKey, chain.mandate.grant_id);
    }
    const parts = {
      act,
      decision: gate.decision,
      cost,
      outcome,
      ...(faults.has(ReceiptFault.outcomeWithoutGate) ? {} : { gate: gateDigest }),
      ...(gate.context === undefined ? {} : { context: gate.context }),
    };
    append(chain, parts, faults, false);
    if (faults.has(ReceiptFault.duplicateOutcome)) append(chain, parts, faults, false);
  };

  if (options.ledger !== undefined) {
    ledger = openReceiptLedger(options.ledger, {
      // The ledger is streamed through the replay, never held whole: only each chain's window stays.
      onEntry: (entry) => replayEntry(entry, chainOf, record, issuer.keyref, options.ledger ?? ''),
      ...(options.ledgerSync === undefined ? {} : { sync: options.ledgerSync }),
      ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }),
    });
    try {
      closeOpenGates(chains, ledger, appendOutcome, options.onWarning);
    } catch (error) {
      ledger.close();
      throw error;
    }
  }

  return {
    issuerKeyref: issuer.keyref,
    serviceId,
    level,

    gate(input: GateInput): { gateDigest: string } {
      const faults = input.faults ?? NO_FAULTS;
      const chain = chainOf(input.account);
      if (faults.has(ReceiptIssuerFault.listWithoutGrantId)) grantHidden.add(input.account);
      let act: Act = { verb: 'model.call', resource: input.resource, input_digest: digestOf(input.inputDigestOf) };
      if (level >= 2) act = signAct(act, chain.actorKey, chain.mandate.grant_id);
      const decision = decisionOf(input.decision, faults);
      const context = level >= 3 ? digestOf(contextEnvelopeOf(input.inputDigestOf)) : undefined;
      // D-RCPT-09: "Cost of a gate Receipt = the estimate made when deciding (a denied gate costs "0")".
      let amount = input.decision.result === 'denied' ? '0' : input.estimatedCostUsd;
      if (faults.has(ReceiptFault.noncanonicalCost)) amount = amount.includes('.') ? `${amount}0` : `${amount}.0`;
      const sealed = append(chain, { act, decision, cost: usd(amount), ...(context === undefined ? {} : { context }) }, faults, true);
      if (decision.result === 'allowed') chain.open.set(sealed.digest, { act, decision, context });
      else if (faults.has(ReceiptIssuerFault.outcomeOnDenial)) appendOutcome(chain, sealed.digest, { act, decision, context }, { status: 'failed', resolved: null }, usd('0'), NO_FAULTS);
      if (faults.has(ReceiptFault.wrongGateHeader)) {
        const alias = digestOf({ 'not-the-gate': sealed.digest });
        // Only an allowed gate gets an outcome that must find its way back (and removes the alias).
        if (decision.result === 'allowed') aliases.set(alias, sealed.digest);
        return { gateDigest: alias };
      }
      return { gateDigest: sealed.digest };
    },

    outcome(input: OutcomeInput): void {
      const faults = input.faults ?? NO_FAULTS;
      const chain = chainOf(input.account);
      const gateDigest = aliases.get(input.gateDigest) ?? input.gateDigest;
      aliases.delete(input.gateDigest);
      const gate = chain.open.get(gateDigest);
      // An outcome for a gate that is not open (never issued, or already closed) would corrupt the chain.
      if (gate === undefined) return;
      chain.open.delete(gateDigest);
      if (faults.has(ReceiptFault.missingOutcome)) return;
      // Spec, Receipt outcome: "for model.call outcome Receipts the resolved provider, model and matched boundary must be recorded".
      const outcome: Outcome = { status: input.status, output_digest: digestOf(input.output) };
      if (!faults.has(ReceiptFault.missingResolved)) {
        outcome.resolved =
          input.resolved !== null && faults.has(ReceiptFault.wrongResolvedModel) ? { ...input.resolved, model: `${input.resolved.model}-fallback` } : input.resolved;
      }
      appendOutcome(chain, gateDigest, gate, outcome, usd(input.costUsd), faults);
    },

    chain(account: string): ReceiptChainView {
      const chain = chainOf(account);
      const data = chain.receipts.slice(chain.start).map((json) => JSON.parse(json) as unknown);
      return { mandate: listedMandate(chain) as Mandate, head: chain.head ?? null, ...(chain.omitted > 0 ? { omitted: chain.omitted } : {}), data };
    },

    chainJson(account: string): string {
      const chain = chainOf(account);
      // The stored texts are JSON.stringify output, so they are what parse + stringify would give back.
      const omitted = chain.omitted > 0 ? `"omitted":${chain.omitted},` : '';
      const kept = chain.start === 0 ? chain.receipts : chain.receipts.slice(chain.start);
      return `{"object":"list","mandate":${JSON.stringify(listedMandate(chain))},"head":${JSON.stringify(chain.head ?? null)},${omitted}"data":[${kept.join(',')}]}`;
    },

    keys(faults: ReadonlySet<string> = NO_FAULTS): ReceiptKeysView {
      const kid = faults.has(ReceiptFault.keysMismatch) ? otherIssuer.keyref : issuer.keyref;
      return keysWithFaults({ object: 'receipt_keys', service_id: serviceId, keys: [{ kid, alg: 'Ed25519', use: 'issuer' }] }, faults, otherIssuer);
    },

    accounts: () => [...chains.keys()],

    close() {
      ledger?.close();
    },
  };
}

/** Rebuilds one ledger line into its chain (its window, head and open gates), as the ledger is read. */
function replayEntry(entry: LedgerEntry, chainOf: (account: string) => Chain, record: (chain: Chain, sealed: SealedReceipt, json: string) => void, issuerKeyref: string, path: string): void {
  const receipt = entry.receipt as unknown as Receipt;
  const chain = chainOf(entry.account);
  if (receipt.iss !== issuerKeyref || entry.mandate !== chain.mandate.id) {
    throw new HarnessError(HarnessErrorCode.CONFIG_INVALID, `ledger ${path} was written by a mock with another seed (receipt at byte offset ${entry.offset})`, {
      hint: 'restart with the same --seed, or use a new --ledger file',
    });
  }
  const digest = digestOf(receipt);
  record(chain, { receipt, digest }, JSON.stringify(receipt));
  if (receipt.gate !== undefined) chain.open.delete(receipt.gate);
  else if (receipt.outcome === undefined && receipt.decision.result === 'allowed') {
    chain.open.set(digest, { act: receipt.act, decision: receipt.decision, context: receipt.context });
  }
}

/** Gates the previous run left open never finished: they are closed as interrupted on restart. */
function closeOpenGates(
  chains: Map<string, Chain>,
  ledger: ReceiptLedger,
  appendOutcome: (chain: Chain, gateDigest: string, gate: OpenGate, outcome: Outcome, cost: Budget, faults: ReadonlySet<string>) => void,
  onWarning: ((message: string) => void) | undefined,
): void {
  let closed = 0;
  for (const chain of chains.values()) {
    for (const [digest, gate] of [...chain.open]) {
      chain.open.delete(digest);
      appendOutcome(chain, digest, gate, { status: 'interrupted', resolved: null }, usd('0'), NO_FAULTS);
      closed++;
    }
  }
  if (closed > 0) {
    const message = `ledger ${ledger.path}: ${closed} gate Receipt(s) left open by the previous run closed with outcome "interrupted"`;
    (onWarning ?? ((m: string) => process.stderr.write(`iari mock: ${m}\n`)))(message);
  }
}
