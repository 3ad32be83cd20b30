import { sealReceipt, approveAct, signAct } from './seal.ts';
import { PROTO } from './pae.ts';
import { newReceiptId } from './receipt-id.ts';
import type { Ed25519Key } from './signing-key.ts';
import type { Act, Budget, Decision, Outcome, Receipt, SealedReceipt, UnsignedReceipt } from './types.ts';

export type ConformanceLevel = 1 | 2 | 3;

export interface ChainBuilderOptions {
  /** The issuer key: signs every Receipt (sig) and is named by `iss`. */
  issuer: Ed25519Key;
  /** The acting key named by `actor`; signs actor_sig at level 2 and above. */
  actor: Ed25519Key;
  /** 1 (default), 2 (every act carries actor_sig) or 3 (also context on model.call). */
  level?: ConformanceLevel;
  /** The Mandate's grant identifier; required at level 2 and 3. */
  grantId?: string;
  /** The service identifier approvals are made over (D-RCPT-06); default: the issuer's keyref. */
  serviceId?: string;
  /** Clock in integer seconds; default: wall clock. iat never decreases along the chain. */
  now?: () => number;
  /** Id factory; default "rcpt_" + UUIDv7. */
  nextId?: () => string;
  /** Keep every Receipt in `receipts` (default true); false for very long chains. */
  retain?: boolean;
  /** Resume after an existing head (digest of the last Receipt and its iat). */
  resume?: { head: string; iat: number };
}

export interface GateInput {
  verb?: string;
  resource: string;
  inputDigest?: string;
  decision: Decision;
  cost: Budget;
  /** Digest of the Context Envelope; required at level 3 for model.call. */
  context?: string;
  iat?: number;
  /** Explicit id (default: options.nextId or rcpt_ + UUIDv7). */
  id?: string;
  /** stop.approve signature mode: the approver signs the act. */
  approver?: Ed25519Key;
  /** stop.approve token mode: the disclosed completion token. */
  token?: string;
}

export interface OutcomeInput {
  status: Outcome['status'];
  effects?: string[];
  outputDigest?: string;
  resolved?: Outcome['resolved'];
  cost: Budget;
  iat?: number;
  id?: string;
}

interface OpenGate {
  act: Act;
  decision: Decision;
  context: string | undefined;
}

/** Builds one Mandate's chain: signs, links (prev), pairs outcomes to open allowed gates. */
export class ChainBuilder {
  readonly receipts: Receipt[] = [];
  readonly level: ConformanceLevel;
  readonly serviceId: string;
  #head: string | undefined;
  #lastIat: number;
  #count = 0;
  readonly #open = new Map<string, OpenGate>();
  readonly #o: ChainBuilderOptions;

  constructor(options: ChainBuilderOptions) {
    this.#o = options;
    this.level = options.level ?? 1;
    if (this.level >= 2 && options.grantId === undefined) throw new TypeError('ChainBuilder: level 2 and 3 need grantId');
    this.serviceId = options.serviceId ?? options.issuer.keyref;
    this.#head = options.resume?.head;
    this.#lastIat = options.resume?.iat ?? 0;
  }

  /** Digest of the last Receipt appended (null before the first). */
  get head(): string | null {
    return this.#head ?? null;
  }

  get length(): number {
    return this.#count;
  }

  /** Digests of allowed gates still waiting for their outcome. */
  get openGates(): string[] {
    return [...this.#open.keys()];
  }

  appendGate(input: GateInput): SealedReceipt {
    const verb = input.verb ?? 'model.call';
    let act: Act = { verb, resource: input.resource, ...(input.inputDigest === undefined ? {} : { input_digest: input.inputDigest }) };
    if (this.level >= 2) act = signAct(act, this.#o.actor, this.#o.grantId as string);
    if (this.level >= 3 && verb === 'model.call' && input.context === undefined) throw new TypeError('ChainBuilder: level 3 model.call needs context');
    if (input.approver !== undefined && input.token !== undefined) throw new TypeError('ChainBuilder: approval and token are exclusive');
    const extra: Partial<UnsignedReceipt> = {};
    if (input.context !== undefined) extra.context = input.context;
    if (input.approver !== undefined) extra.approval = approveAct(act, this.serviceId, input.approver);
    if (input.token !== undefined) extra.token = input.token;
    const sealed = this.#append({ act, decision: input.decision, cost: input.cost, ...extra }, input.iat, input.id);
    if (input.decision.result === 'allowed') this.#open.set(sealed.digest, { act, decision: input.decision, context: input.context });
    return sealed;
  }

  /** A stop.approve gate in signature mode (approver) or token mode (token). */
  appendStopApprove(input: { resource: string; cost?: Budget; iat?: number; id?: string } & ({ approver: Ed25519Key } | { token: string })): SealedReceipt {
    return this.appendGate({
      verb: 'stop.approve',
      resource: input.resource,
      decision: { result: 'allowed' },
      cost: input.cost ?? { amount: '0', unit: 'USD' },
      ...(input.iat === undefined ? {} : { iat: input.iat }),
      ...(input.id === undefined ? {} : { id: input.id }),
      ...('approver' in input ? { approver: input.approver } : { token: input.token }),
    });
  }

  appendOutcome(gateDigest: string, input: OutcomeInput): SealedReceipt {
    const gate = this.#open.get(gateDigest);
    if (gate === undefined) throw new TypeError('ChainBuilder: no open allowed gate with that digest');
    const outcome: Outcome = { status: input.status };
    if (input.effects !== undefined) outcome.effects = input.effects;
    if (input.outputDigest !== undefined) outcome.output_digest = input.outputDigest;
    if (input.resolved !== undefined) outcome.resolved = input.resolved;
    const sealed = this.#append(
      { act: structuredClone(gate.act), decision: structuredClone(gate.decision), cost: input.cost, gate: gateDigest, outcome, ...(gate.context === undefined ? {} : { context: gate.context }) },
      input.iat,
      input.id,
    );
    this.#open.delete(gateDigest);
    return sealed;
  }

  #append(parts: Pick<UnsignedReceipt, 'act' | 'decision' | 'cost'> & Partial<UnsignedReceipt>, iat: number | undefined, id: string | undefined): SealedReceipt {
    const now = iat ?? this.#o.now?.() ?? Math.floor(Date.now() / 1000);
    const at = Math.max(now, this.#lastIat);
    const unsigned: UnsignedReceipt = {
      proto: PROTO,
      type: 'receipt',
      id: id ?? this.#o.nextId?.() ?? newReceiptId(),
      iss: this.#o.issuer.keyref,
      iat: at,
      ...(this.#head === undefined ? {} : { prev: this.#head }),
      actor: this.#o.actor.keyref,
      ...parts,
    };
    const sealed = sealReceipt(unsigned, this.#o.issuer);
    this.#head = sealed.digest;
    this.#lastIat = at;
    this.#count++;
    if (this.#o.retain !== false) this.receipts.push(sealed.receipt);
    return sealed;
  }
}
