import { ByteRecords, GrowableFloat64, GrowableInt32, RecordIndex } from './compact-store.ts';
import { WARNING_CODES, type Finding, type FindingCode } from './findings.ts';
import { CheckContext, checkOptionsOf, checkReceipt, payloadDigest, type CheckOptions } from './receipt-checks.ts';
import {
  FactsBatch, F_ACTOR_SIG_UNCHECKED, F_ALLOWED, F_PREV_FORM_NO_SIG, F_PREV_FORM_WIRE, F_GATE, F_GATE_DIGEST, F_ID, F_OUTCOME, F_PREV, F_PREV_DIGEST, F_STOP,
  K_RECEIPT, O_DIGEST, O_GATE, O_ID_HASH, O_PAIR, O_PREV, STRIDE,
} from './receipt-facts.ts';
import { checkVerifyOptions, VerifyOptionsError, type VerifyOptions } from './verify-options.ts';

export type { VerifyOptions } from './verify-options.ts';

interface ResultBase {
  /** Receipts read (including unreadable ones). */
  count: number;
  level: 1 | 2 | 3;
  /** Digest of the last Receipt along the links from the genesis, or null. */
  head: string | null;
  warnings: Finding[];
  /** Findings beyond maxFindings, counted but not kept. */
  omitted: number;
  /** Count of every finding code seen (kept or omitted). */
  counts: Partial<Record<FindingCode, number>>;
  notes: string[];
}

export type ChainVerifyResult = (ResultBase & { valid: true; errors: [] }) | (ResultBase & { valid: false; errors: Finding[] });

// Per-Receipt state kept by the chain logic.
const S_MEMBER = 1;
const S_OUTCOME = 2;
const S_ALLOWED = 4;
const S_STOP = 8;
const S_DUP = 16;
const S_PREV_NO_SIG = 32;
const S_PREV_WIRE = 64;

const TRUNCATION_NOTE = 'no expected head given (--head): a chain cut short at its end cannot be detected';
const UNCHECKED_NOTE = 'actor_sig present but not checked: no grant id given (--grant-id)';

/**
 * Streaming chain verifier (D-RCPT-07, D-RCPT-22, D-RCPT-25): `push` each Receipt's bytes (or text)
 * in input order, or `pushFacts` the results of the per-Receipt checks made elsewhere (a worker),
 * then `finish`. Memory per Receipt: its digest, an id hash, the pairing hashes, iat and a few
 * int32 indexes and flags; the documents themselves are not kept.
 */
export class ChainVerifier {
  readonly #o: VerifyOptions;
  readonly #checkOptions: CheckOptions;
  #ctx: CheckContext | undefined;
  readonly #one = new FactsBatch(1);
  readonly #errors: Finding[] = [];
  readonly #warnings: Finding[] = [];
  readonly #counts: Partial<Record<FindingCode, number>> = {};
  readonly #notes = new Set<string>();
  #omitted = 0;
  #n = 0;

  readonly #trusted: ReadonlySet<string> | undefined;
  readonly #untrustedReported = new Set<string>();
  readonly #digests = new ByteRecords(32);
  readonly #digestIndex = new RecordIndex(this.#digests);
  readonly #ids = new ByteRecords(16);
  readonly #idIndex = new RecordIndex(this.#ids);
  readonly #pairs = new ByteRecords(48);
  readonly #state = new GrowableInt32();
  readonly #iat = new GrowableFloat64();
  readonly #issuer = new GrowableInt32();
  readonly #issuers = new Map<string, number>();
  /** parent index; -1 genesis (no prev); -2 prev present but not (yet) a member. */
  readonly #parent = new GrowableInt32();
  readonly #pendingPrev = new ByteRecords(32);
  readonly #pendingPrevOf = new GrowableInt32();
  /** named gate of an outcome; -1 none (or not a member); -2 pending. */
  readonly #gate = new GrowableInt32();
  readonly #pendingGate = new ByteRecords(32);
  readonly #pendingGateOf = new GrowableInt32();

  /** Throws VerifyOptionsError, before any Receipt is read, for a given key that is not a valid key (D-RCPT-21). */
  constructor(options: VerifyOptions = {}) {
    const check = checkVerifyOptions(options);
    if (!check.ok) throw new VerifyOptionsError(check.code, check.key, check.detail);
    this.#o = options;
    this.#checkOptions = checkOptionsOf(options);
    this.#trusted = options.trustedIssuers === undefined ? undefined : new Set(options.trustedIssuers);
  }

  /** The options the per-Receipt checks run with (the clock is read once, here). */
  get checkOptions(): CheckOptions {
    return this.#checkOptions;
  }

  #add(f: Finding): void {
    this.#counts[f.code] = (this.#counts[f.code] ?? 0) + 1;
    if (this.#errors.length + this.#warnings.length >= (this.#o.maxFindings ?? 1000)) {
      this.#omitted++;
      return;
    }
    (this.#isWarning(f.code) ? this.#warnings : this.#errors).push(f);
  }

  #isWarning(code: FindingCode): boolean {
    // D-RCPT-08: IAT_FUTURE is an error only when the verifier trusts its clock (strictClock).
    if (code === 'IAT_FUTURE') return this.#o.strictClock !== true;
    return WARNING_CODES.has(code);
  }

  /** Reports a finding about the input as a whole (e.g. a malformed JSON array around the Receipts). */
  addInputFinding(f: Finding): void {
    this.#add(f);
  }

  /** Number of Receipts pushed so far. */
  get count(): number {
    return this.#n;
  }

  /** Checks one Receipt on this thread and adds it to the chain. */
  push(input: Uint8Array | string): void {
    this.#ctx ??= new CheckContext(this.#checkOptions);
    const batch = this.#one;
    batch.findings.length = 0;
    batch.findingSlots.length = 0;
    batch.io = undefined;
    checkReceipt(input, this.#n, this.#ctx, batch, 0);
    this.pushFacts(batch);
  }

  /** Records a Receipt that could not be read at all (e.g. larger than the size limit) with its finding. */
  pushUnreadable(code: FindingCode, detail: string): void {
    const index = this.#n++;
    this.#add({ code, index, detail });
    this.#placeholder();
  }

  #placeholder(): void {
    this.#digests.push(new Uint8Array(32));
    this.#ids.push(new Uint8Array(16));
    this.#pairs.push(new Uint8Array(48));
    this.#state.push(0);
    this.#iat.push(Number.NaN);
    this.#issuer.push(-1);
    this.#parent.push(-1);
    this.#gate.push(-1);
  }

  /** Adds the Receipts whose per-Receipt checks are in slots [from, to) of `batch` (made with `checkOptions`), in input order. */
  pushFacts(batch: FactsBatch, from = 0, to = batch.n): void {
    const fs = batch.findings;
    const slots = batch.findingSlots;
    let j = 0;
    while (j < slots.length && (slots[j] as number) < from) j++;
    for (let k = from; k < to; k++) {
      const index = this.#n++;
      const first = j;
      while (j < slots.length && slots[j] === k) j++;
      if (batch.kind[k] !== K_RECEIPT) {
        for (let q = first; q < j; q++) this.#add(fs[q] as Finding);
        this.#placeholder();
        continue;
      }
      const base = k * STRIDE;
      const flags = batch.flags[k] as number;
      const id = batch.ids[k];
      const slot = this.#digests.push(batch.bytes.subarray(base + O_DIGEST, base + O_DIGEST + 32));
      // D-RCPT-07 "no Receipt appears twice (DUPLICATE_RECEIPT, same digest)": the copy is not a second member; its findings are the first's.
      const dupOf = this.#digestIndex.add(slot);
      if (dupOf !== -1) {
        this.#add({ code: 'DUPLICATE_RECEIPT', index, ...(id === undefined ? {} : { id }), detail: `same Receipt as index ${dupOf}` });
        this.#ids.push(new Uint8Array(16));
        this.#pairs.push(new Uint8Array(48));
        this.#state.push(S_DUP);
        this.#iat.push(Number.NaN);
        this.#issuer.push(-1);
        this.#parent.push(-1);
        this.#gate.push(-1);
        continue;
      }
      for (let q = first; q < j; q++) this.#add(fs[q] as Finding);
      const withId = (f: Omit<Finding, 'id'>): Finding => (id === undefined ? f : { ...f, id });
      // D-RCPT-07: "no two share an id (DUPLICATE_ID)".
      const idSlot = this.#ids.push(batch.bytes.subarray(base + O_ID_HASH, base + O_ID_HASH + 16));
      if ((flags & F_ID) !== 0) {
        const other = this.#idIndex.add(idSlot);
        if (other !== -1) this.#add(withId({ code: 'DUPLICATE_ID', index, pointer: '/id', detail: `id also used by index ${other}` }));
      }
      this.#pairs.push(batch.bytes.subarray(base + O_PAIR, base + O_PAIR + 48));
      this.#state.push(
        S_MEMBER |
          ((flags & F_OUTCOME) !== 0 ? S_OUTCOME : 0) |
          ((flags & F_ALLOWED) !== 0 ? S_ALLOWED : 0) |
          ((flags & F_STOP) !== 0 ? S_STOP : 0) |
          ((flags & F_PREV_FORM_NO_SIG) !== 0 ? S_PREV_NO_SIG : 0) |
          ((flags & F_PREV_FORM_WIRE) !== 0 ? S_PREV_WIRE : 0),
      );
      this.#iat.push(batch.iat[k] as number);
      // D-RCPT-21: "A Receipt whose iss is not trusted is ISSUER_UNTRUSTED (once per untrusted issuer, at its first Receipt)".
      const iss = batch.iss[k];
      let issuerIdx = -1;
      if (iss !== undefined) {
        if ((this.#trusted === undefined || !this.#trusted.has(iss)) && !this.#untrustedReported.has(iss) && this.#untrustedReported.size < 65_536) {
          this.#untrustedReported.add(iss);
          this.#add(withId({ code: 'ISSUER_UNTRUSTED', index, pointer: '/iss', detail: this.#trusted === undefined ? `no trusted issuer keys given; ${iss} is not trusted` : `${iss} is not a trusted issuer key` }));
        }
        issuerIdx = this.#issuers.get(iss) ?? -1;
        if (issuerIdx === -1 && this.#issuers.size < 65_536) {
          issuerIdx = this.#issuers.size;
          this.#issuers.set(iss, issuerIdx);
        }
      }
      this.#issuer.push(issuerIdx);
      if ((flags & F_ACTOR_SIG_UNCHECKED) !== 0 && (this.#o.level ?? 1) < 2) this.#notes.add(UNCHECKED_NOTE);
      this.#payloads(batch, k, index, id);

      // Seed: "prev | digest | no | digest of the previous Receipt in this Mandate's chain; absent on the first Receipt".
      if ((flags & F_PREV) === 0) this.#parent.push(-1);
      else if ((flags & F_PREV_DIGEST) === 0) {
        // D-RCPT-25: a prev that is not a digest names no member (BAD_DIGEST and CHAIN_BREAK both).
        this.#parent.push(-2);
        this.#add(withId({ code: 'CHAIN_BREAK', index, pointer: '/prev', detail: 'prev is not a digest, so it names no Receipt of this chain' }));
      } else {
        const pb = batch.bytes.subarray(base + O_PREV, base + O_PREV + 32);
        const p = this.#digestIndex.find(pb);
        if (p !== -1) this.#parent.push(p);
        else {
          this.#parent.push(-2);
          this.#pendingPrev.push(pb);
          this.#pendingPrevOf.push(index);
        }
      }
      // Seed: "gate | digest | conditional | outcome Receipts only: the paired gate Receipt".
      if ((flags & F_OUTCOME) === 0 || (flags & F_GATE) === 0) this.#gate.push(-1);
      else if ((flags & F_GATE_DIGEST) === 0) {
        this.#gate.push(-1);
        this.#add(withId({ code: 'GATE_NOT_FOUND', index, pointer: '/gate', detail: 'gate is not a digest, so it names no Receipt of this chain' }));
      } else {
        const gb = batch.bytes.subarray(base + O_GATE, base + O_GATE + 32);
        const g = this.#digestIndex.find(gb);
        if (g !== -1) this.#gate.push(g);
        else {
          this.#gate.push(-2);
          this.#pendingGate.push(gb);
          this.#pendingGateOf.push(index);
        }
      }
    }
  }

  #payloads(batch: FactsBatch, k: number, index: number, id: string | undefined): void {
    const payload = this.#o.payloads?.(index, id);
    const io = batch.io?.[k];
    if (payload === undefined || io === undefined) return;
    const [inputDigest, outputDigest, context] = io;
    const withId = (f: Omit<Finding, 'id'>): Finding => (id === undefined ? f : { ...f, id });
    // D-RCPT-13: checked only against the payloads the caller gives; "an absent act.input_digest (or act), or an
    // outcome.output_digest absent from an outcome, is IO_DIGEST_MISMATCH, as an absent context is CONTEXT_DIGEST_MISMATCH".
    if (payload.input !== undefined && inputDigest !== payloadDigest(payload.input)) this.#add(withId({ code: 'IO_DIGEST_MISMATCH', index, pointer: '/act/input_digest', detail: 'input_digest is not the digest of the given request body' }));
    if (payload.output !== undefined && ((batch.flags[k] as number) & F_OUTCOME) !== 0 && outputDigest !== payloadDigest(payload.output)) this.#add(withId({ code: 'IO_DIGEST_MISMATCH', index, pointer: '/outcome/output_digest', detail: 'output_digest is not the digest of the given output' }));
    if (payload.context !== undefined && context !== payloadDigest(payload.context)) this.#add(withId({ code: 'CONTEXT_DIGEST_MISMATCH', index, pointer: '/context', detail: 'context is not the digest of the given Context Envelope' }));
  }

  #pairDiffers(a: number, b: number, at: number): boolean {
    const x = this.#pairs.get(a);
    const y = this.#pairs.get(b);
    for (let i = at; i < at + 16; i++) if (x[i] !== y[i]) return true;
    return false;
  }

  finish(): ChainVerifyResult {
    const n = this.#n;
    const parentOf = this.#parent;
    const stateOf = this.#state;
    const gateOf = this.#gate;
    const member = (i: number) => (stateOf.get(i) & S_MEMBER) !== 0;
    // Resolve links to Receipts that came later in the input.
    for (let k = 0; k < this.#pendingPrevOf.length; k++) {
      const i = this.#pendingPrevOf.get(k);
      const p = this.#digestIndex.find(this.#pendingPrev.get(k));
      if (p !== -1) parentOf.set(i, p);
      else {
        // D-RCPT-07: "every prev names a member (CHAIN_BREAK)".
        this.#add({ code: 'CHAIN_BREAK', index: i, pointer: '/prev', detail: 'prev names no Receipt of this chain' });
        // D-RCPT-07: prev is the digest of the **whole** previous Receipt's JCS; D-RCPT-25: both are reported.
        const s = stateOf.get(i);
        const form = (s & S_PREV_NO_SIG) !== 0 ? 'of that Receipt without its sig' : (s & S_PREV_WIRE) !== 0 ? 'of that Receipt\'s bytes as served, not of its JCS form' : undefined;
        if (form !== undefined) this.#add({ code: 'PREV_DIGEST_FORM', index: i, pointer: '/prev', detail: `prev is the digest ${form} (index ${i - 1}); D-RCPT-07 takes the digest of the whole Receipt's JCS, sig included` });
      }
    }
    for (let k = 0; k < this.#pendingGateOf.length; k++) {
      const i = this.#pendingGateOf.get(k);
      const g = this.#digestIndex.find(this.#pendingGate.get(k));
      gateOf.set(i, g);
      // D-RCPT-22: an outcome's gate "must name a member (GATE_NOT_FOUND)".
      if (g === -1) this.#add({ code: 'GATE_NOT_FOUND', index: i, pointer: '/gate', detail: 'gate names no Receipt of this chain' });
    }
    // Exactly one genesis; forks; order rebuilt from the links (depth-first, ties in input order).
    const firstChild = new Int32Array(n).fill(-1);
    const nextSibling = new Int32Array(n).fill(-1);
    for (let i = n - 1; i >= 0; i--) {
      const p = parentOf.get(i);
      if (p >= 0 && member(i)) {
        nextSibling[i] = firstChild[p] as number;
        firstChild[p] = i;
      }
    }
    const roots: number[] = [];
    let genesisCount = 0;
    let members = 0;
    for (let i = 0; i < n; i++) {
      if (!member(i)) continue;
      members++;
      const p = parentOf.get(i);
      if (p === -1) {
        genesisCount++;
        roots.push(i);
        // D-RCPT-07: "exactly one genesis (CHAIN_NO_GENESIS, CHAIN_MULTIPLE_GENESIS)".
        if (genesisCount > 1) this.#add({ code: 'CHAIN_MULTIPLE_GENESIS', index: i, detail: 'a second Receipt without prev' });
      }
      if (p >= 0 && firstChild[p] !== i) this.#add({ code: 'CHAIN_FORK', index: i, pointer: '/prev', detail: `index ${firstChild[p]} has the same prev` });
    }
    if (genesisCount === 0 && members > 0) this.#add({ code: 'CHAIN_NO_GENESIS', index: null, detail: 'no Receipt without prev' });
    for (let i = 0; i < n; i++) if (member(i) && parentOf.get(i) === -2) roots.push(i);
    const rank = new Int32Array(n).fill(-1);
    let next = 0;
    const stack: number[] = [];
    for (const root of roots) {
      stack.push(root);
      while (stack.length > 0) {
        const i = stack.pop() as number;
        if (rank[i] !== -1) continue;
        rank[i] = next++;
        const top = stack.length;
        for (let c = firstChild[i] as number; c !== -1; c = nextSibling[c] as number) stack.push(c);
        // Children in input order: reverse the ones just pushed so the first comes off the stack first.
        for (let a = top, b = stack.length - 1; a < b; a++, b--) [stack[a], stack[b]] = [stack[b] as number, stack[a] as number];
      }
    }
    let head = -1;
    if (roots.length > 0 && parentOf.get(roots[0] as number) === -1) {
      head = roots[0] as number;
      while ((firstChild[head] as number) !== -1) head = firstChild[head] as number;
    }
    // Along the links: iat order and issuer changes.
    for (let i = 0; i < n; i++) {
      const p = parentOf.get(i);
      if (p < 0 || !member(i)) continue;
      // D-RCPT-07: "Along the links iat never decreases (IAT_REGRESSION)".
      if (this.#iat.get(i) < this.#iat.get(p)) this.#add({ code: 'IAT_REGRESSION', index: i, pointer: '/iat', detail: `iat earlier than the previous Receipt's (index ${p})` });
      if (this.#issuer.get(i) !== this.#issuer.get(p)) this.#add({ code: 'ISSUER_CHANGED', index: i, pointer: '/iss', detail: `iss differs from the previous Receipt's (index ${p})` });
    }
    // D-RCPT-22 pairing, in input order: every outcome Receipt against the member its gate names.
    const firstOutcome = new Int32Array(n).fill(-1);
    for (let i = 0; i < n; i++) {
      const g = gateOf.get(i);
      if (g < 0) continue;
      const gs = stateOf.get(g);
      const at = (code: FindingCode, pointer: string, detail: string) => this.#add({ code, index: i, pointer, detail });
      // "that comes earlier in the chain order (GATE_NOT_PRIOR)".
      if ((rank[g] as number) > (rank[i] as number)) at('GATE_NOT_PRIOR', '/gate', `the gate (index ${g}) comes later in the chain`);
      if ((gs & S_OUTCOME) !== 0) at('GATE_IS_OUTCOME', '/gate', `gate names the outcome Receipt at index ${g}`);
      if ((gs & S_ALLOWED) === 0) at('OUTCOME_WITHOUT_ALLOWED_GATE', '/gate', `the gate at index ${g} was not allowed`);
      if (firstOutcome[g] !== -1) at('DUPLICATE_OUTCOME', '/gate', `the gate at index ${g} already has an outcome (index ${firstOutcome[g]})`);
      else firstOutcome[g] = i;
      // The pair comparisons need a gate to compare with: a named outcome is not one (GATE_IS_OUTCOME says so).
      if ((gs & S_OUTCOME) !== 0) continue;
      if (this.#pairDiffers(i, g, 0)) at('PAIR_ACT_MISMATCH', '/act', `act differs from the gate's (index ${g})`);
      if (this.#pairDiffers(i, g, 16)) at('PAIR_ACTOR_MISMATCH', '/actor', `actor differs from the gate's (index ${g})`);
      if (this.#pairDiffers(i, g, 32)) at('PAIR_DECISION_MISMATCH', '/decision', `decision differs from the gate's (index ${g})`);
      if (this.#iat.get(i) < this.#iat.get(g)) at('PAIR_IAT_REGRESSION', '/iat', `iat earlier than the gate's (index ${g})`);
    }
    for (let i = 0; i < n; i++) {
      const s = stateOf.get(i);
      // D-RCPT-22: "An allowed gate without an outcome is the warning GATE_OPEN"; "Only a gate whose act.verb is the
      // string stop.approve is excluded: a gate without act, or whose act has no string verb, is not" (S_STOP).
      if ((s & S_MEMBER) !== 0 && (s & (S_OUTCOME | S_STOP)) === 0 && (s & S_ALLOWED) !== 0 && firstOutcome[i] === -1) {
        this.#add({ code: 'GATE_OPEN', index: i, detail: 'allowed gate without an outcome' });
      }
    }
    // D-RCPT-19: without the grant id no level-2 guarantee can be checked; one finding for the chain.
    if ((this.#o.level ?? 1) >= 2 && this.#o.grantId === undefined && n > 0) {
      this.#add({ code: 'GRANT_ID_UNAVAILABLE', index: null, detail: 'no grant id given (mandate.grant_id or --grant-id): actor_sig cannot be checked' });
    }
    const headDigest = head === -1 ? null : `sha256:${Buffer.from(this.#digests.get(head)).toString('hex')}`;
    const notes = [...this.#notes];
    if (this.#o.expectedHead === undefined) notes.push(TRUNCATION_NOTE);
    // D-RCPT-23: "Tail truncation is undetectable without an expected head (--head, HEAD_MISMATCH)"; a finding about the whole chain.
    else if (this.#o.expectedHead !== headDigest) this.#add({ code: 'HEAD_MISMATCH', index: null, detail: `head is ${headDigest ?? 'absent'}, expected ${this.#o.expectedHead}` });
    if (n === 0) notes.push('the input holds no Receipts');
    const sortByIndex = (a: Finding, b: Finding) => (a.index ?? -1) - (b.index ?? -1);
    const base: ResultBase = { count: n, level: this.#o.level ?? 1, head: headDigest, warnings: this.#warnings.sort(sortByIndex), omitted: this.#omitted, counts: this.#counts, notes };
    const errors = this.#errors.sort(sortByIndex);
    if (!Object.keys(this.#counts).some((c) => !this.#isWarning(c as FindingCode))) return { ...base, valid: true, errors: [] };
    return { ...base, valid: false, errors };
  }
}
