import { inject, type TestContext } from 'vitest';
import type { CheckContext, CheckDef, CheckOutcome } from './check-types.ts';
import type { RunSettings } from './check-context.ts';
import { createCheckContext } from './check-context.ts';
import { runCheck } from './check-runner.ts';
import { checkByName } from './catalog.ts';
import { gradeFor } from './registry-view.ts';
import type { Grade } from './verdicts.ts';
import type { Discoveries } from './usage-shape.ts';
import type { Capability, CapabilityProbe } from './capabilities.ts';

/** What `iari test` provides to the contract suites (in memory, through vitest's `provide`). */
export interface ContractProvide {
  settings: RunSettings;
  /** Requirement IDs selected by --grade/--only/--skip; a check none of whose IDs is selected does not run. */
  selectedIds: string[];
}

/** What each contract test leaves on its task for the reporter. */
export interface ContractTaskMeta {
  check: string;
  outcomes: CheckOutcome[];
  durationMs: number;
  /** What the run had discovered about open shapes when this check ended (for the report). */
  discovered?: Discoveries;
  /** What the capability probes had found when this check ended. */
  capabilities?: Partial<Record<Capability, CapabilityProbe>>;
}

declare module 'vitest' {
  interface ProvidedContext {
    iari: ContractProvide;
  }
  interface TaskMeta {
    iari?: ContractTaskMeta;
  }
}

const ID_PATTERN = /\b[A-Z]+(?:-[A-Z]+)*-\d{3}\b/g;

/** The requirement IDs a test title names before its first ':'. */
export function idsInTitle(title: string): string[] {
  const head = title.split(':')[0] ?? '';
  return [...head.matchAll(ID_PATTERN)].map((m) => m[0]);
}

let runtime: { ctx: CheckContext; selected: Set<string>; gradeOf: (id: string) => Grade } | undefined;

function getRuntime(): { ctx: CheckContext; selected: Set<string>; gradeOf: (id: string) => Grade } {
  if (runtime === undefined) {
    const provided = inject('iari');
    if (provided === undefined) throw new Error('the contract suites run through `iari test` (no run settings were provided)');
    // One context per worker: with isolate off and one worker, every suite shares the cache and the throttle.
    runtime = { ctx: createCheckContext(provided.settings), selected: new Set(provided.selectedIds), gradeOf: gradeFor(provided.settings.profile ?? 'default') };
  }
  return runtime;
}

function describeFailures(outcomes: readonly CheckOutcome[]): string {
  return outcomes
    .flatMap((o) => (o.verdict === 'fail' ? o.failures.map((f) => `${o.id}: ${f.message}${f.requestId === undefined ? '' : ` (x-request-id ${f.requestId})`}`) : []))
    .join('\n');
}

/**
 * The body of a contract test: runs the named check against the server under test, leaves its
 * outcomes on the task for the reporter, and fails the test when any outcome is `fail`.
 */
export function runs(checkName: string): (context: TestContext) => Promise<void> {
  return async ({ task }) => {
    const def: CheckDef = checkByName(checkName);
    const named = idsInTitle(task.name);
    if (named.join(',') !== def.ids.join(',')) {
      throw new Error(`test title names ${named.join(', ')} but check ${checkName} decides ${def.ids.join(', ')}`);
    }
    const rt = getRuntime();
    const started = performance.now();
    const outcomes: CheckOutcome[] = def.ids.some((id) => rt.selected.has(id))
      ? await runCheck(def, rt.ctx, rt.gradeOf)
      : def.ids.map((id) => ({ id, verdict: 'skipped', reason: 'not selected' }));
    task.meta.iari = { check: def.name, outcomes, durationMs: Math.round(performance.now() - started), ...(rt.ctx.discovered.usage === undefined ? {} : { discovered: rt.ctx.discovered }), capabilities: rt.ctx.capabilities.snapshot() };
    const failures = describeFailures(outcomes);
    if (failures.length > 0) throw new Error(failures);
  };
}
