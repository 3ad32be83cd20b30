import type { Finding } from './findings.ts';

// What the per-Receipt checks (receipt-checks.ts, on this thread or a worker) hand to the
// sequential chain logic (chain-verifier.ts): for each Receipt its findings, and the few facts the
// chain needs (digest, links, pairing hashes, iat, id, iss) in typed arrays that cross threads by
// transfer, not copy.

/** The Receipt could not be read (strict reader or size limit): no value, no part in the chain. */
export const K_UNREADABLE = 0;
/** A JSON object: a member of the chain. */
export const K_RECEIPT = 1;
/** Read, but not a JSON object (SCHEMA_TYPE): no part in the chain. */
export const K_NOT_OBJECT = 2;

export const F_PREV = 1;
export const F_PREV_DIGEST = 2;
export const F_OUTCOME = 4;
export const F_GATE = 8;
export const F_GATE_DIGEST = 16;
export const F_ALLOWED = 32;
export const F_STOP = 64;
export const F_ID = 128;
/** act.actor_sig present but not checked (no grant id); a note at level 1. */
export const F_ACTOR_SIG_UNCHECKED = 256;
/** prev is not the digest of the Receipt before it in input order, but of that Receipt without its sig (PREV_DIGEST_FORM). */
export const F_PREV_FORM_NO_SIG = 512;
/** ... or of that Receipt's bytes as served, which are not its JCS form (PREV_DIGEST_FORM). */
export const F_PREV_FORM_WIRE = 1024;

export const O_DIGEST = 0;
export const O_PREV = 32;
export const O_GATE = 64;
/** Three 16-byte hashes: JCS of act, actor, decision (a marker when absent). */
export const O_PAIR = 96;
export const O_ID_HASH = 144;
export const STRIDE = 160;

export interface FactsMessage {
  n: number;
  buffer: ArrayBuffer;
  ids: (string | undefined)[];
  iss: (string | undefined)[];
  findings: Finding[];
  findingSlots: number[];
  io: ([string | undefined, string | undefined, string | undefined] | undefined)[] | undefined;
}

/** The facts of n consecutive Receipts. */
export class FactsBatch {
  readonly buffer: ArrayBuffer;
  readonly iat: Float64Array;
  readonly flags: Uint16Array;
  readonly kind: Uint8Array;
  readonly bytes: Uint8Array;
  readonly ids: (string | undefined)[];
  readonly iss: (string | undefined)[];
  readonly findings: Finding[] = [];
  /** findingSlots[j] is the slot findings[j] belongs to (ascending). */
  readonly findingSlots: number[] = [];
  /** Per slot, when payload checks are on: act.input_digest, outcome.output_digest, context (strings only). */
  io: FactsMessage['io'];

  constructor(
    readonly n: number,
    buffer?: ArrayBuffer,
  ) {
    this.buffer = buffer ?? new ArrayBuffer(n * (8 + 2 + 1 + STRIDE));
    this.iat = new Float64Array(this.buffer, 0, n);
    this.flags = new Uint16Array(this.buffer, 8 * n, n);
    this.kind = new Uint8Array(this.buffer, 10 * n, n);
    this.bytes = new Uint8Array(this.buffer, 11 * n, STRIDE * n);
    this.ids = new Array<string | undefined>(n);
    this.iss = new Array<string | undefined>(n);
  }

  addFinding(slot: number, f: Finding): void {
    this.findings.push(f);
    this.findingSlots.push(slot);
  }

  toMessage(): { message: FactsMessage; transfer: ArrayBuffer[] } {
    return {
      message: { n: this.n, buffer: this.buffer, ids: this.ids, iss: this.iss, findings: this.findings, findingSlots: this.findingSlots, io: this.io },
      transfer: [this.buffer],
    };
  }

  static fromMessage(m: FactsMessage): FactsBatch {
    const b = new FactsBatch(m.n, m.buffer);
    for (let k = 0; k < m.n; k++) {
      b.ids[k] = m.ids[k];
      b.iss[k] = m.iss[k];
    }
    for (const f of m.findings) b.findings.push(f);
    for (const slot of m.findingSlots) b.findingSlots.push(slot);
    b.io = m.io;
    return b;
  }
}
