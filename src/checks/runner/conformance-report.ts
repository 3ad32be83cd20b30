import type { BaselineOutcome, Profile, RequirementResult, UsageDay, Verdict } from '../kernel/verdicts.ts';
import type { Discoveries } from '../wire/usage-shape.ts';
import type { CapabilityRow } from '../registry/capabilities.ts';

/** The whole conformance run, as `iari test --json` prints it and conformance.json holds it. */
export interface ConformanceReport {
  tool: { name: 'iari'; version: string };
  run: {
    id: string;
    startedAt: string;
    durationMs: number;
    /** The base URL with any credentials removed. */
    baseUrl: string;
    target: 'bundled-mock' | 'external';
    seed: number;
    grade: 'must' | 'should' | 'all';
    /** Which profile judged the run (D-GRADE-04): `strict` grades profile requirements SHOULD. */
    profile: Profile;
    only: string[];
    skip: string[];
    /** `openai`: the interface's extras were not judged (scopes.ts); absent: the whole interface. */
    scope?: 'openai';
    /**
     * The run sent no token (issue 43; absent: it sent one). `implicit`: none was named and
     * $IARI_TOKEN was unset, so what needs one was not tested and the run is undecided (exit 4);
     * `accepted`: --no-token said the server has no auth. The skipped results say which.
     */
    noToken?: 'implicit' | 'accepted';
    include: string[];
  };
  summary: Record<Verdict, number> & { total: number };
  /** Sorted by requirement ID; identical across runs with the same seed apart from timings. */
  results: RequirementResult[];
  coverage: { exercised: number; registry: number; unexercised: string[] };
  usage: { days: UsageDay[] } | { unavailable: string };
  /** What iari worked out where the seed leaves a shape open (the usage rows and `days`), D-HTTP-43. */
  discovered?: Discoveries;
  /** Which features beyond the seed's core the server offers (capabilities.ts), and whether their requirements were judged. */
  capabilities?: CapabilityRow[];
  /** What `--baseline FILE` did to the verdicts (src/checks/runner/apply-baseline.ts). */
  baseline?: BaselineOutcome;
  /**
   * Failures outside any requirement's verdict, each failing the run as a failed requirement does:
   * a capability named with --expect that the server does not offer where no failed requirement
   * shows it (logprobs has none), an error that escaped a check. Every output lists them.
   */
  runFailures?: string[];
  /** Whether the run passed: no failed requirement and no run failure (runPassed). Written into conformance.json; the exit code follows it. */
  passed?: boolean;
}
