// The mock's receipt issuer: one Mandate chain per account, a gate Receipt for every chat request
// that passes validation and an outcome Receipt paired to every allowed gate, signed with the
// service's Ed25519 key (deterministic from the seed). Canonical bytes, digests, ids and signatures
// all come from the receipt library (src/receipts/); this file only decides what goes into each
// Receipt, links it (prev) and applies the receipt faults of faults-receipts.ts. The chains (their
// windows, heads, open gates and lists) are receipt-chains.ts's.
import { digestOf, Ed25519Key, newReceiptId, PROTO, sealReceipt, sealReceiptText, signAct } from '../src/receipts/index.ts';
import type { Act, Budget, Decision, Outcome, Receipt, SealedReceipt, UnsignedReceipt } from '../src/receipts/index.ts';
import { derivedSeed, ReceiptChains, type Chain, type OpenGate } from './receipt-chains.ts';
import { ReceiptFault } from './faults-receipts.ts';
import { keysWithFaults, ReceiptIssuerFault, sealWithFaults, type MutationContext } from './receipt-fault-mutations.ts';
import type { GateDecision, GateInput, OutcomeInput, ReceiptChainView, ReceiptIssuer, ReceiptKeysView } from './receipt-hooks.ts';
import { openReceiptLedger, type LedgerSyncMode, type ReceiptLedger } from './receipt-ledger.ts';

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

export { DEFAULT_RECEIPT_RETENTION } from './receipt-chains.ts';

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

const NO_FAULTS: ReadonlySet<string> = new Set();

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
  const chains = new ReceiptChains(seed, options.retention);
  const otherIssuer = Ed25519Key.fromSeed(derivedSeed(`advertised/${seed}`));
  // x-receipt-gate values given out under receipt-wrong-gate-header, mapped back to the real gate.
  const aliases = new Map<string, string>();

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
    chains.record(chain, sealed, json);
    if (faults.has(ReceiptIssuerFault.crossAccountCopy)) chains.leak(chain, json);
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
      onEntry: (entry) => chains.replay(entry, issuer.keyref, options.ledger ?? ''),
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
      const chain = chains.of(input.account);
      if (faults.has(ReceiptIssuerFault.listWithoutGrantId)) chains.hideGrant(input.account);
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
      const chain = chains.of(input.account);
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

    chain: (account: string): ReceiptChainView => chains.view(account),

    chainJson: (account: string): string => chains.json(account),

    keys(faults: ReadonlySet<string> = NO_FAULTS): ReceiptKeysView {
      const kid = faults.has(ReceiptFault.keysMismatch) ? otherIssuer.keyref : issuer.keyref;
      return keysWithFaults({ object: 'receipt_keys', service_id: serviceId, keys: [{ kid, alg: 'Ed25519', use: 'issuer' }] }, faults, otherIssuer);
    },

    accounts: () => chains.accounts(),

    close() {
      ledger?.close();
    },
  };
}

/** Gates the previous run left open never finished: they are closed as interrupted on restart. */
function closeOpenGates(
  chains: ReceiptChains,
  ledger: ReceiptLedger,
  appendOutcome: (chain: Chain, gateDigest: string, gate: OpenGate, outcome: Outcome, cost: Budget, faults: ReadonlySet<string>) => void,
  onWarning: ((message: string) => void) | undefined,
): void {
  let closed = 0;
  for (const chain of chains.all()) {
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
