import { createHash } from 'node:crypto';
import { canonicalString } from './canonical.ts';
import { digestBytes } from './digest.ts';
import { ByteRecords, GrowableFloat64, GrowableInt32, GrowableUint8, RecordIndex } from './compact-store.ts';
import { WARNING_CODES, type Finding, type FindingCode } from './findings.ts';
import { CheckContext, checkReceipt, isCanonicalWire } from './receipt-checks.ts';
import { parseStrictJson, DEFAULT_LIMITS } from './strict-json.ts';
import type { VerifyOptions } from './verify-options.ts';

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

const F_PARSED = 1;
const F_OUTCOME = 2;
const F_ALLOWED = 4;
const F_DUP = 8;
const F_HAS_OUTCOME = 16;
const F_HAS_GATE_REF = 32;
const F_SCHEMA_OK = 64;
const F_STOP = 128;

const TRUNCATION_NOTE = 'no expected head given (--head): a chain cut short at its end cannot be detected';

function hash16(text: string): Uint8Array {
  return createHash('sha256').update(text).digest().subarray(0, 16);
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Streaming chain verifier: `push` each Receipt's bytes (or text) in input order, then `finish`.
 * Memory per Receipt: its digest, an id hash, iat, a few int32 indexes and flags; the documents
 * themselves are not kept. Pair data (act, actor, decision hashes) is kept only for open gates.
 */
export class ChainVerifier {
  readonly #ctx: CheckContext;
  readonly #o: VerifyOptions;
  readonly #errors: Finding[] = [];
  readonly #warnings: Finding[] = [];
  readonly #counts: Partial<Record<FindingCode, number>> = {};
  #omitted = 0;
  #n = 0;

  readonly #digests = new ByteRecords(32);
  readonly #digestIndex = new RecordIndex(this.#digests);
  readonly #ids = new ByteRecords(16);
  readonly #idIndex = new RecordIndex(this.#ids);
  readonly #flags = new GrowableUint8();
  readonly #iat = new GrowableFloat64();
  readonly #issuer = new GrowableInt32();
  readonly #issuers = new Map<string, number>();
  /** parent index; -1 genesis; -2 unresolved now (pending or broken); -3 unusable prev. */
  readonly #parent = new GrowableInt32();
  readonly #pendingPrev = new ByteRecords(32);
  readonly #pendingPrevOf = new GrowableInt32();
  /** gate index of an outcome; -1 none; -2 pending. */
  readonly #gate = new GrowableInt32();
  readonly #pendingGate = new ByteRecords(32);
  readonly #pendingGateOf = new GrowableInt32();
  /** Pair hashes (act, actor, decision: 3 x 16 bytes) of gates awaiting an outcome, and of outcomes awaiting their gate. */
  readonly #pair = new Map<number, Uint8Array>();

  constructor(options: VerifyOptions = {}) {
    this.#o = options;
    this.#ctx = new CheckContext(options);
  }

  #add(f: Finding): void {
    this.#counts[f.code] = (this.#counts[f.code] ?? 0) + 1;
    const list = WARNING_CODES.has(f.code) ? this.#warnings : this.#errors;
    if (this.#errors.length + this.#warnings.length >= (this.#o.maxFindings ?? 1000)) {
      this.#omitted++;
      return;
    }
    list.push(f);
  }

  /** Reports a finding found while reading the input (e.g. a malformed JSON array) for the Receipt at `index`. */
  addInputFinding(f: Finding): void {
    this.#add(f);
  }

  /** Number of Receipts pushed so far. */
  get count(): number {
    return this.#n;
  }

  push(input: Uint8Array | string): void {
    const index = this.#n++;
    const parsed = parseStrictJson(input, this.#o.limits ?? DEFAULT_LIMITS);
    if (!parsed.ok) {
      this.#add({ code: parsed.error.code, index, ...(parsed.error.pointer === '' ? {} : { pointer: parsed.error.pointer }), detail: `${parsed.error.detail} at offset ${parsed.error.offset}` });
      this.#placeholder();
      return;
    }
    this.pushValue(parsed.value, index, input);
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
    this.#flags.push(0);
    this.#iat.push(Number.NaN);
    this.#issuer.push(-1);
    this.#parent.push(-3);
    this.#gate.push(-1);
  }

  /** For already-parsed values (internal; `push` parses strictly first). */
  private pushValue(value: unknown, index: number, wire: Uint8Array | string): void {
    const checked = checkReceipt(value, index, this.#ctx, (f) => this.#add(f));
    const r = isObj(value) ? value : {};
    const id = typeof r['id'] === 'string' ? r['id'] : undefined;
    const withId = (f: Omit<Finding, 'id'>): Finding => (id === undefined ? f : { ...f, id });
    if (this.#o.strictWire === true) {
      const text = typeof wire === 'string' ? wire : Buffer.from(wire).toString('utf8');
      if (!isCanonicalWire(text, value)) this.#add(withId({ code: 'WIRE_NOT_CANONICAL', index, detail: 'wire bytes are not the JCS form' }));
    }
    const dBytes = digestBytes(checked.digest) as Uint8Array;
    const slot = this.#digests.push(dBytes);
    let flags = F_PARSED | (checked.schemaValid ? F_SCHEMA_OK : 0);
    // D-RCPT-07: "no Receipt appears twice (DUPLICATE_RECEIPT, same digest)".
    const dupOf = this.#digestIndex.add(slot);
    if (dupOf !== -1) {
      this.#add(withId({ code: 'DUPLICATE_RECEIPT', index, detail: `same Receipt as index ${dupOf}` }));
      this.#ids.push(new Uint8Array(16));
      this.#flags.push(flags | F_DUP);
      this.#iat.push(Number.NaN);
      this.#issuer.push(-1);
      this.#parent.push(-3);
      this.#gate.push(-1);
      return;
    }
    // D-RCPT-07: "no two share an id (DUPLICATE_ID)".
    const idSlot = this.#ids.push(id === undefined ? new Uint8Array(16) : hash16(id));
    if (id !== undefined) {
      const other = this.#idIndex.add(idSlot);
      if (other !== -1) this.#add({ code: 'DUPLICATE_ID', index, id, pointer: '/id', detail: `id also used by index ${other}` });
    }
    // A Receipt that fails the schema keeps its place in the links, but takes no part in pairing.
    const decision = checked.schemaValid && isObj(r['decision']) ? r['decision'] : undefined;
    const outcome = checked.schemaValid && r['outcome'] !== undefined;
    if (outcome) flags |= F_OUTCOME;
    if (decision?.['result'] === 'allowed') flags |= F_ALLOWED;
    if (isObj(r['act']) && r['act']['verb'] === 'stop.approve') flags |= F_STOP;
    this.#iat.push(checked.schemaValid && typeof r['iat'] === 'number' ? r['iat'] : Number.NaN);
    const iss = typeof r['iss'] === 'string' ? r['iss'] : undefined;
    let issuerIdx = -1;
    if (iss !== undefined) {
      issuerIdx = this.#issuers.get(iss) ?? -1;
      if (issuerIdx === -1 && this.#issuers.size < 65_536) {
        issuerIdx = this.#issuers.size;
        this.#issuers.set(iss, issuerIdx);
      }
    }
    this.#issuer.push(issuerIdx);

    // Seed: "prev | digest | no | digest of the previous Receipt in this Mandate's chain; absent on the first Receipt".
    const prev = r['prev'];
    if (prev === undefined) this.#parent.push(-1);
    else {
      const pb = typeof prev === 'string' ? digestBytes(prev) : undefined;
      if (pb === undefined) this.#parent.push(-3);
      else {
        const p = this.#digestIndex.find(pb);
        if (p !== -1) this.#parent.push(p);
        else {
          this.#parent.push(-2);
          this.#pendingPrev.push(pb);
          this.#pendingPrevOf.push(index);
        }
      }
    }

    const pairKey = decision !== undefined && (outcome || (flags & F_ALLOWED) !== 0) ? this.#pairHashes(r) : undefined;
    // Seed: "gate | digest | conditional | outcome Receipts only: the paired gate Receipt".
    const gateRef = r['gate'];
    const gb = typeof gateRef === 'string' ? digestBytes(gateRef) : undefined;
    if (outcome && gb !== undefined) {
      flags |= F_HAS_GATE_REF;
      const g = this.#digestIndex.find(gb);
      if (g !== -1) {
        this.#gate.push(g);
        this.#flags.push(flags);
        this.#pairWithGate(index, g, pairKey, id);
        return;
      }
      this.#gate.push(-2);
      this.#pendingGate.push(gb);
      this.#pendingGateOf.push(index);
      if (pairKey !== undefined) this.#pair.set(index, pairKey);
    } else {
      this.#gate.push(-1);
      if (!outcome && (flags & F_ALLOWED) !== 0 && pairKey !== undefined) this.#pair.set(index, pairKey);
    }
    this.#flags.push(flags);
  }

  #pairHashes(r: Obj): Uint8Array {
    const out = new Uint8Array(48);
    out.set(hash16(canonicalString(r['act'] ?? null)), 0);
    out.set(hash16(String(r['actor'])), 16);
    out.set(hash16(canonicalString(r['decision'] ?? null)), 32);
    return out;
  }

  /** D-RCPT-22 pairing checks that need only the outcome and its gate (order is checked in finish). */
  #pairWithGate(index: number, g: number, outcomePair: Uint8Array | undefined, id: string | undefined): void {
    const gf = this.#flags.get(g);
    if ((gf & F_SCHEMA_OK) === 0) return;
    const withId = (f: Omit<Finding, 'id'>): Finding => (id === undefined ? f : { ...f, id });
    if ((gf & F_OUTCOME) !== 0) {
      this.#add(withId({ code: 'GATE_IS_OUTCOME', index, pointer: '/gate', detail: `gate names the outcome Receipt at index ${g}` }));
      return;
    }
    if ((gf & F_ALLOWED) === 0) {
      this.#add(withId({ code: 'OUTCOME_WITHOUT_ALLOWED_GATE', index, pointer: '/gate', detail: `the gate at index ${g} was not allowed` }));
      return;
    }
    if ((gf & F_HAS_OUTCOME) !== 0) {
      this.#add(withId({ code: 'DUPLICATE_OUTCOME', index, pointer: '/gate', detail: `the gate at index ${g} already has an outcome` }));
      return;
    }
    this.#flags.set(g, gf | F_HAS_OUTCOME);
    const gatePair = this.#pair.get(g);
    this.#pair.delete(g);
    if (gatePair !== undefined && outcomePair !== undefined) {
      const differs = (o: number) => !Buffer.from(gatePair.subarray(o, o + 16)).equals(outcomePair.subarray(o, o + 16));
      if (differs(0)) this.#add(withId({ code: 'PAIR_ACT_MISMATCH', index, pointer: '/act', detail: `act differs from the gate's (index ${g})` }));
      if (differs(16)) this.#add(withId({ code: 'PAIR_ACTOR_MISMATCH', index, pointer: '/actor', detail: `actor differs from the gate's (index ${g})` }));
      if (differs(32)) this.#add(withId({ code: 'PAIR_DECISION_MISMATCH', index, pointer: '/decision', detail: `decision differs from the gate's (index ${g})` }));
    }
    if (this.#iat.get(index) < this.#iat.get(g)) this.#add(withId({ code: 'PAIR_IAT_REGRESSION', index, pointer: '/iat', detail: `iat earlier than the gate's (index ${g})` }));
  }

  finish(): ChainVerifyResult {
    const n = this.#n;
    const parent = this.#parent.a;
    const flags = this.#flags.a;
    // Resolve links to Receipts that came later in the input.
    for (let k = 0; k < this.#pendingPrevOf.length; k++) {
      const i = this.#pendingPrevOf.get(k);
      const p = this.#digestIndex.find(this.#pendingPrev.get(k));
      if (p !== -1 && ((flags[p] as number) & F_DUP) === 0) parent[i] = p;
      // D-RCPT-07: "every prev names a member (CHAIN_BREAK)".
      else this.#add({ code: 'CHAIN_BREAK', index: i, pointer: '/prev', detail: 'prev names no Receipt of this chain' });
    }
    // Exactly one genesis; forks; order rebuilt from the links (depth-first, ties in input order).
    const firstChild = new Int32Array(n).fill(-1);
    const nextSibling = new Int32Array(n).fill(-1);
    let genesisCount = 0;
    for (let i = n - 1; i >= 0; i--) {
      const p = parent[i] as number;
      if (p >= 0) {
        nextSibling[i] = firstChild[p] as number;
        firstChild[p] = i;
      }
    }
    const roots: number[] = [];
    for (let i = 0; i < n; i++) {
      const f = flags[i] as number;
      if ((f & F_PARSED) === 0 || (f & F_DUP) !== 0) continue;
      const p = parent[i] as number;
      if (p === -1) {
        genesisCount++;
        roots.push(i);
        // D-RCPT-07: "exactly one genesis (CHAIN_NO_GENESIS, CHAIN_MULTIPLE_GENESIS)".
        if (genesisCount > 1) this.#add({ code: 'CHAIN_MULTIPLE_GENESIS', index: i, detail: 'a second Receipt without prev' });
      }
      if (p >= 0 && firstChild[p] !== i) this.#add({ code: 'CHAIN_FORK', index: i, pointer: '/prev', detail: `index ${firstChild[p]} has the same prev` });
    }
    const parsedCount = (() => {
      let c = 0;
      for (let i = 0; i < n; i++) if (((flags[i] as number) & F_PARSED) !== 0 && ((flags[i] as number) & F_DUP) === 0) c++;
      return c;
    })();
    if (genesisCount === 0 && parsedCount > 0) this.#add({ code: 'CHAIN_NO_GENESIS', index: null, detail: 'no Receipt without prev' });
    for (let i = 0; i < n; i++) {
      const f = flags[i] as number;
      if ((f & F_PARSED) !== 0 && (f & F_DUP) === 0 && (parent[i] as number) < -1) roots.push(i);
    }
    const rank = new Int32Array(n).fill(-1);
    let next = 0;
    const stack: number[] = [];
    const walk = (root: number) => {
      stack.push(root);
      while (stack.length > 0) {
        const i = stack.pop() as number;
        if (rank[i] !== -1) continue;
        rank[i] = next++;
        const kids: number[] = [];
        for (let c = firstChild[i] as number; c !== -1; c = nextSibling[c] as number) kids.push(c);
        for (let k = kids.length - 1; k >= 0; k--) stack.push(kids[k] as number);
      }
    };
    for (const root of roots) walk(root);
    let head = -1;
    if (roots.length > 0 && (parent[roots[0] as number] as number) === -1) {
      head = roots[0] as number;
      while ((firstChild[head] as number) !== -1) head = firstChild[head] as number;
    }
    // Along the links: iat order and issuer changes.
    for (let i = 0; i < n; i++) {
      const p = parent[i] as number;
      if (p < 0) continue;
      // D-RCPT-07: "Along the links iat never decreases (IAT_REGRESSION)".
      if (this.#iat.get(i) < this.#iat.get(p)) this.#add({ code: 'IAT_REGRESSION', index: i, pointer: '/iat', detail: `iat earlier than the previous Receipt's (index ${p})` });
      if (this.#issuer.get(i) !== this.#issuer.get(p)) this.#add({ code: 'ISSUER_CHANGED', index: i, pointer: '/iss', detail: `iss differs from the previous Receipt's (index ${p})` });
    }
    // Pairing for gates that came later in the input.
    for (let k = 0; k < this.#pendingGateOf.length; k++) {
      const i = this.#pendingGateOf.get(k);
      const g = this.#digestIndex.find(this.#pendingGate.get(k));
      if (g === -1) {
        this.#add({ code: 'GATE_NOT_FOUND', index: i, pointer: '/gate', detail: 'gate names no Receipt of this chain' });
        continue;
      }
      this.#gate.set(i, g);
      const pair = this.#pair.get(i);
      this.#pair.delete(i);
      this.#pairWithGate(i, g, pair, undefined);
    }
    for (let i = 0; i < n; i++) {
      const g = this.#gate.get(i);
      // D-RCPT-22: "that comes earlier in the chain order (GATE_NOT_PRIOR)".
      if (g >= 0 && (rank[g] as number) > (rank[i] as number)) this.#add({ code: 'GATE_NOT_PRIOR', index: i, pointer: '/gate', detail: `the gate (index ${g}) comes later in the chain` });
    }
    for (let i = 0; i < n; i++) {
      const f = flags[i] as number;
      // D-RCPT-22: "An allowed gate without an outcome is the warning GATE_OPEN" (stop.approve excluded).
      if ((f & F_PARSED) !== 0 && (f & (F_DUP | F_OUTCOME | F_HAS_OUTCOME | F_STOP)) === 0 && (f & F_ALLOWED) !== 0 && (f & F_SCHEMA_OK) !== 0) {
        this.#add({ code: 'GATE_OPEN', index: i, detail: 'allowed gate without an outcome' });
      }
    }
    const headDigest = head === -1 ? null : `sha256:${Buffer.from(this.#digests.get(head)).toString('hex')}`;
    const notes = [...this.#ctx.notes];
    if (this.#o.expectedHead === undefined) notes.push(TRUNCATION_NOTE);
    // D-RCPT-23: "Tail truncation is undetectable without an expected head (--head, HEAD_MISMATCH)".
    else if (this.#o.expectedHead !== headDigest) this.#add({ code: 'HEAD_MISMATCH', index: head === -1 ? null : head, detail: `head is ${headDigest ?? 'absent'}, expected ${this.#o.expectedHead}` });
    if (n === 0) notes.push('the input holds no Receipts');
    const sortByIndex = (a: Finding, b: Finding) => (a.index ?? -1) - (b.index ?? -1);
    const base: ResultBase = { count: n, level: this.#o.level ?? 1, head: headDigest, warnings: this.#warnings.sort(sortByIndex), omitted: this.#omitted, counts: this.#counts, notes };
    const errors = this.#errors.sort(sortByIndex);
    if (errors.length === 0 && !Object.keys(this.#counts).some((c) => !WARNING_CODES.has(c as FindingCode))) return { ...base, valid: true, errors: [] };
    return { ...base, valid: false, errors };
  }
}
