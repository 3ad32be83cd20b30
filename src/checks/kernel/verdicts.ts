/**
 * Verdicts are a closed set and fail-closed: a requirement starts as `fail` and only evidence
 * moves it to another verdict (autobahn's `self.behavior = Case.FAILED`).
 */
export const verdicts = ['pass', 'fail', 'non-strict', 'informational', 'skipped', 'known', 'undecided'] as const;
export type Verdict = (typeof verdicts)[number];

/**
 * Why a requirement the run selected was left undecided (issue 37: a deadline decides nothing):
 * `deadline`, the run's deadline (--run-timeout) passed before its check started or while it ran;
 * `rate-limit`, the server still refused its requests with 429 after iari waited (LIMIT is the root
 * cause). Neither is a finding about the requirement, and neither is a pass: the run exits 4.
 */
export const undecidedCauses = ['deadline', 'rate-limit'] as const;
export type UndecidedCause = (typeof undecidedCauses)[number];

export const grades = ['MUST', 'SHOULD', 'INFO'] as const;
export type Grade = (typeof grades)[number];

export const sources = ['seed', 'compat', 'profile'] as const;
export type Source = (typeof sources)[number];

/**
 * How `profile` requirements are graded (spec/DECISIONS.md D-GRADE-04): `default` keeps them INFO
 * (iari never fails or flags a server for a choice the seed leaves open); `strict` raises them to
 * SHOULD, for people who want this project's profile.
 */
export const profiles = ['default', 'strict'] as const;
export type Profile = (typeof profiles)[number];

/** What a failing (or non-strict) check saw; everything a reader needs to reproduce it. */
export interface Failure {
  message: string;
  expected?: unknown;
  received?: unknown;
  /** Byte offset into a response stream, where the finding is about a stream. */
  byteOffset?: number;
  /** JSON Pointer into the response body or chunk, where it applies. */
  pointer?: string;
  /** The server's x-request-id of the request that showed the failure. */
  requestId?: string;
  /** A curl line that reproduces the request, with the token written as $IARI_TOKEN. */
  curl?: string;
}

interface ResultBase {
  id: string;
  area: string;
  grade: Grade;
  title: string;
  /** Titles of the tests that decided this requirement. */
  checks: string[];
  durationMs: number;
}

export type RequirementResult =
  | (ResultBase & { verdict: 'pass' })
  | (ResultBase & { verdict: 'fail' | 'non-strict'; failures: Failure[] })
  | (ResultBase & { verdict: 'informational'; note: string })
  | (ResultBase & { verdict: 'skipped'; reason: string })
  /** Selected, not decided, and not the server's fault as far as the run saw (`cause`). */
  | (ResultBase & { verdict: 'undecided'; cause: UndecidedCause; reason: string })
  /** A failure listed in the run's known-failures baseline (`iari test --baseline`): shown, never a finding. */
  | (ResultBase & { verdict: 'known'; failures: Failure[]; known: KnownEntryRef });

/** The baseline entry that made a failure `known`. */
export interface KnownEntryRef {
  reason: string;
  expires?: string;
  serverVersion?: string;
}

/** One day of account usage; a counter the server's rows do not carry is absent (usage-shape.ts). */
export interface UsageDay {
  date: string;
  requests?: number;
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  spend_usd?: number;
}


/** How a known-failures baseline applied to a run. */
export interface BaselineOutcome {
  file: string;
  /** The --server-version the run was given, when it was. */
  serverVersion?: string;
  /** Listed and failing: reported `known`. */
  known: string[];
  /** Listed, no longer failing: the entry can go. */
  fixed: { id: string; line: number; hint: string }[];
  /** Listed, past its expiry and failing: a failure again. */
  expired: { id: string; line: number; expires: string }[];
  /** Listed for another server version: not applied. */
  otherVersion: { id: string; line: number; serverVersion: string }[];
  /** Failing and not listed. */
  new: string[];
}

/** What one check concluded about one requirement it decides (before grading by the registry). */
export type Judgement =
  | { kind: 'pass' }
  /** The requirement is broken; its grade decides fail (MUST), non-strict (SHOULD) or informational (INFO). */
  | { kind: 'violated'; failure: Failure }
  /** Broken in a way this check grades non-strict at most, whatever the requirement's grade. */
  | { kind: 'non-strict'; failure: Failure }
  | { kind: 'informational'; note: string }
  | { kind: 'skipped'; reason: string }
  | { kind: 'undecided'; cause: UndecidedCause; reason: string };

/** The graded outcome of one requirement from one check: the verdict-space form of a Judgement. */
export type CheckOutcome =
  | { id: string; verdict: 'pass' }
  | { id: string; verdict: 'fail' | 'non-strict'; failures: Failure[] }
  | { id: string; verdict: 'informational'; note: string }
  | { id: string; verdict: 'skipped'; reason: string }
  | { id: string; verdict: 'undecided'; cause: UndecidedCause; reason: string };
