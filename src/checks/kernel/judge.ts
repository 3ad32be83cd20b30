import type { CheckOutcome, Failure, Grade, Judgement, UndecidedCause } from './verdicts.ts';

const MAX_FAILURES_PER_ID = 5;

/**
 * Verdict strength when several judgements meet on one requirement: the worst wins. An observation
 * (informational) outranks a pass: on an INFO requirement a breach on one sample is informational,
 * and a pass on another sample must not hide it (D-GRADE-04, profile requirements are INFO).
 */
/**
 * Undecided outranks an observation and a pass (what was not decided is not passed), never a finding
 * another check made.
 */
const rank: Record<CheckOutcome['verdict'], number> = { fail: 6, 'non-strict': 5, undecided: 4, informational: 3, pass: 2, skipped: 1 };

/**
 * Collects a check's judgements on the requirement IDs it decides. Fail-closed: an ID that no
 * judgement reached is reported `fail` ("the check reached no verdict"), never `pass`.
 */
export class Judge {
  readonly #ids: readonly string[];
  readonly #gradeOf: (id: string) => Grade;
  readonly #judged = new Map<string, Judgement[]>();

  constructor(ids: readonly string[], gradeOf: (id: string) => Grade) {
    this.#ids = ids;
    this.#gradeOf = gradeOf;
  }

  get ids(): readonly string[] {
    return this.#ids;
  }

  #add(id: string, judgement: Judgement): void {
    if (!this.#ids.includes(id)) throw new Error(`check judged ${id}, which it does not declare`);
    const list = this.#judged.get(id) ?? [];
    list.push(judgement);
    this.#judged.set(id, list);
  }

  pass(id: string): void {
    this.#add(id, { kind: 'pass' });
  }

  violated(id: string, failure: Failure): void {
    this.#add(id, { kind: 'violated', failure });
  }

  nonStrict(id: string, failure: Failure): void {
    this.#add(id, { kind: 'non-strict', failure });
  }

  informational(id: string, note: string): void {
    this.#add(id, { kind: 'informational', note });
  }

  skip(id: string, reason: string): void {
    this.#add(id, { kind: 'skipped', reason });
  }

  /** The run could not decide `id`, for a cause that is not the server's requirement (verdicts.ts). */
  undecided(id: string, cause: UndecidedCause, reason: string): void {
    this.#add(id, { kind: 'undecided', cause, reason });
  }

  /** Every declared ID not judged yet is undecided for `cause`. */
  undecideRest(cause: UndecidedCause, reason: string): void {
    for (const id of this.#ids) if (!this.#judged.has(id)) this.undecided(id, cause, reason);
  }

  /** Skips every declared ID not judged yet. */
  skipRest(reason: string): void {
    for (const id of this.#ids) if (!this.#judged.has(id)) this.skip(id, reason);
  }

  /** Passes `id` when `ok`, else records the failure built by `failure()`. Returns `ok`. */
  expect(id: string, ok: boolean, failure: () => Failure): boolean {
    if (ok) this.pass(id);
    else this.violated(id, failure());
    return ok;
  }

  /** True once `id` has a judgement (used to avoid passing what an earlier step already failed). */
  has(id: string): boolean {
    return this.#judged.has(id);
  }

  /** Fails every declared ID not judged yet with the given failure (used when a check throws). */
  failRest(failure: Failure): void {
    for (const id of this.#ids) if (!this.#judged.has(id)) this.violatedHard(id, failure);
  }

  /**
   * A root cause kept the rest from being decided (issue 22: a stream that never ends, HDR-012): a
   * MUST fails (it was not decided), a SHOULD or INFO requirement is blocked, never a finding.
   */
  blockRest(failure: Failure): void {
    for (const id of this.#ids) {
      if (this.#judged.has(id)) continue;
      if (this.#gradeOf(id) === 'MUST') this.violatedHard(id, failure);
      else this.skip(id, `blocked: ${failure.message}`);
    }
  }

  #hard = new Set<string>();
  /** A failure of the harness's ability to decide (exception, timeout): `fail` whatever the grade. */
  violatedHard(id: string, failure: Failure): void {
    this.#hard.add(id);
    this.#add(id, { kind: 'violated', failure });
  }

  outcomes(): CheckOutcome[] {
    return this.#ids.map((id) => this.#outcome(id));
  }

  #outcome(id: string): CheckOutcome {
    const judgements = this.#judged.get(id);
    if (judgements === undefined || judgements.length === 0) {
      const message = 'the check reached no verdict on this requirement';
      return this.#gradeOf(id) === 'INFO' ? { id, verdict: 'skipped', reason: `not decided: ${message}` } : { id, verdict: 'fail', failures: [{ message }] };
    }
    // One fold for every level: a check's judgements on an ID here, the checks' outcomes on it in conformance-results.ts.
    return mergeOutcomes(id, judgements.map((j) => this.#grade(id, j)));
  }

  #grade(id: string, j: Judgement): CheckOutcome {
    switch (j.kind) {
      case 'pass':
        return { id, verdict: 'pass' };
      case 'informational':
        return { id, verdict: 'informational', note: j.note };
      case 'skipped':
        return { id, verdict: 'skipped', reason: j.reason };
      case 'undecided':
        return { id, verdict: 'undecided', cause: j.cause, reason: j.reason };
      case 'non-strict':
        return this.#gradeOf(id) === 'INFO'
          ? { id, verdict: 'informational', note: j.failure.message }
          : { id, verdict: 'non-strict', failures: [j.failure] };
      case 'violated': {
        const grade = this.#gradeOf(id);
        // D-GRADE-04: an INFO requirement is never a finding, so never a FAIL; one the harness could
        // not decide (exception, timeout, unreachable) is skipped, saying so (fail-closed: not a pass).
        if (grade === 'INFO' && this.#hard.has(id)) return { id, verdict: 'skipped', reason: `not decided: ${j.failure.message}` };
        if (this.#hard.has(id)) return { id, verdict: 'fail', failures: [j.failure] };
        if (grade === 'MUST') return { id, verdict: 'fail', failures: [j.failure] };
        if (grade === 'SHOULD') return { id, verdict: 'non-strict', failures: [j.failure] };
        return { id, verdict: 'informational', note: j.failure.message };
      }
    }
  }
}

/** Merges outcomes of several checks on one requirement: the worst verdict wins, failures accumulate. */
export function mergeOutcomes(id: string, outcomes: readonly CheckOutcome[]): CheckOutcome {
  if (outcomes.length === 0) return { id, verdict: 'fail', failures: [{ message: 'no check reported on this requirement' }] };
  let worst = outcomes[0] as CheckOutcome;
  for (const o of outcomes) if (rank[o.verdict] > rank[worst.verdict]) worst = o;
  if (worst.verdict === 'fail' || worst.verdict === 'non-strict') {
    const v = worst.verdict;
    const failures = outcomes.flatMap((o) => (o.verdict === v ? o.failures : []));
    return { id, verdict: v, failures: failures.slice(0, MAX_FAILURES_PER_ID) };
  }
  return { ...worst, id };
}
