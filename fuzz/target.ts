import type fc from 'fast-check';

/**
 * One fuzz target: a parser of untrusted bytes, the invariants it must keep on any input, and how
 * to generate inputs for it. Every engine drives the same `run` (fuzz/execute.ts): fast-check in
 * the test tiers and for portable runs, Jazzer.js for coverage-guided long runs (docs/fuzzing.md).
 */
export interface FuzzTarget {
  /** kebab-case, also the corpus folder (fuzz/corpus/<name>) and `npm run fuzz -- --target <name>`. */
  readonly name: string;
  /** The modules under test (repository paths), for coverage and the docs table. */
  readonly sources: readonly string[];
  /** The invariants `run` checks, one sentence each (docs/fuzzing.md quotes them). */
  readonly invariants: readonly string[];
  /** The reference parser `run` compares with on valid inputs, if there is one. */
  readonly reference?: string;
  /** Largest input the engines give (libFuzzer -max_len); the time bound holds up to it. */
  readonly maxLen: number;
  /** Wall time one input may take at the most, whatever its size up to maxLen (a hang or a superlinear path breaks it). */
  readonly timeBoundMs: number;
  /** Valid inputs from a model of the format (fast-check mixes them with mutated corpus seeds and raw bytes: fuzz/inputs.ts). */
  readonly valid: fc.Arbitrary<Uint8Array>;
  /** Inputs the repository already has (recorded streams, fixtures, examples): the corpus starts from them. */
  readonly seeds?: () => Uint8Array[];
  /** Reads one input and checks every invariant; throws InvariantBroken when one does not hold. */
  readonly run: (input: Uint8Array) => void | Promise<void>;
  /** True when `run` returns a promise (Jazzer then runs it without --sync). */
  readonly async?: boolean;
}

/** An invariant that did not hold: what a fuzz run reports as a finding. */
export class InvariantBroken extends Error {
  override readonly name = 'InvariantBroken';
  readonly code = 'FUZZ_INVARIANT_BROKEN';
}

export function holds(condition: boolean, what: () => string): asserts condition {
  if (!condition) throw new InvariantBroken(what());
}

/**
 * Runs `read`, which may throw only errors `isOwn` accepts (the parser's own typed errors, e.g. a
 * HarnessError): anything else (a TypeError, a RangeError from a runaway recursion) is a finding.
 */
export function ownErrorsOnly<T>(read: () => T, isOwn: (error: unknown) => boolean, who: string): { ok: true; value: T } | { ok: false; error: unknown } {
  try {
    return { ok: true, value: read() };
  } catch (error) {
    if (error instanceof InvariantBroken) throw error;
    holds(isOwn(error), () => `${who} threw ${describeError(error)}, not its own typed error`);
    return { ok: false, error };
  }
}

/** Runs `read`, which must not throw at all (a reader that reports what it cannot read instead). */
export function neverThrows<T>(read: () => T, who: string): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof InvariantBroken) throw error;
    throw new InvariantBroken(`${who} threw ${describeError(error)}`);
  }
}

export async function ownErrorsOnlyAsync<T>(read: () => Promise<T>, isOwn: (error: unknown) => boolean, who: string): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await read() };
  } catch (error) {
    if (error instanceof InvariantBroken) throw error;
    holds(isOwn(error), () => `${who} threw ${describeError(error)}, not its own typed error`);
    return { ok: false, error };
  }
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message.slice(0, 300)}${error.stack === undefined ? '' : `\n${error.stack.split('\n').slice(1, 6).join('\n')}`}`;
  return String(error).slice(0, 300);
}

/** Text of a value for a finding's message, clipped. */
export function show(value: unknown, max = 300): string {
  let text: string;
  try {
    text = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : typeof v === 'number' && !Number.isFinite(v) ? String(v) : v)) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
/** Lenient decode (U+FFFD for bad bytes), as most readers of the text formats do. */
export const text = (bytes: Uint8Array): string => new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);

/**
 * Deterministic read boundaries for a streaming parser, drawn from the input's own bytes (so an
 * engine that only hands bytes still tries many splits, and a finding replays exactly).
 */
export function cutsOf(input: Uint8Array, most = 12): number[] {
  let h = 0x811c9dc5;
  for (let i = 0; i < input.length; i++) h = Math.imul(h ^ (input[i] as number), 0x01000193);
  const cuts = new Set<number>();
  const n = input.length < 2 ? 0 : 1 + ((h >>> 0) % most);
  for (let k = 0; k < n; k++) {
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) ^ k;
    cuts.add(1 + ((h >>> 0) % (input.length - 1)));
  }
  return [...cuts].sort((a, b) => a - b);
}

/** `input` split at `cuts` (ascending, within the input). */
export function split(input: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let from = 0;
  for (const c of cuts) {
    out.push(input.subarray(from, c));
    from = c;
  }
  out.push(input.subarray(from));
  return out;
}

/** One byte per read, for inputs small enough that this stays cheap. */
export function bytewise(input: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < input.length; i++) out.push(input.subarray(i, i + 1));
  return out;
}
