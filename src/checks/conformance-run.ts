import { packageVersion } from '../package-root.ts';
import type { ConformanceReport } from './verdicts.ts';
import type { RunSettings } from './check-context.ts';
import type { CheckRun, Selection, UsageSection } from './conformance-results.ts';
import { buildResults, coverageOf, deselectionReason, summarize } from './conformance-results.ts';
import { requirementInfos } from './registry-view.ts';
import { runContractSuites } from './contract-vitest.ts';
import { exercisedIds } from './contract-coverage.ts';
import { fetchUsageDays } from './usage-heatmap.ts';
import { capabilityTable, type Capability, type CapabilityProbe } from './capabilities.ts';

export interface ConformanceRunOptions {
  settings: RunSettings;
  /** Shown in the report (credentials removed). */
  baseUrlDisplay: string;
  selection: Selection;
  runId: string;
  onResult?: (run: CheckRun, done: number, total: number) => void;
}

export interface ConformanceRunOutput {
  report: ConformanceReport;
  /** Errors outside any test (a suite that failed to load...): they make the run fail. */
  errors: string[];
}

/** Runs the contract suites against one server and folds everything into a ConformanceReport. */
export async function runConformance(options: ConformanceRunOptions): Promise<ConformanceRunOutput> {
  const started = new Date();
  const t0 = performance.now();
  // D-GRADE-04: under --profile strict, profile requirements are judged, selected and reported as SHOULD.
  const profile = options.settings.profile ?? 'default';
  const requirements = [...requirementInfos(profile).values()];
  const selectedIds = requirements.filter((r) => deselectionReason(r, options.selection) === undefined).map((r) => r.id);
  const { runs, errors } = await runContractSuites({
    provide: { settings: options.settings, selectedIds },
    ...(options.onResult === undefined ? {} : { onResult: options.onResult }),
  });
  const discovered = runs.findLast((r) => r.discovered?.usage !== undefined)?.discovered ?? {};
  const usage: UsageSection = await fetchUsageDays(options.settings, discovered.usage);
  const results = buildResults(requirements, runs, options.selection);
  const found = Object.assign({}, ...runs.map((r) => r.capabilities ?? {})) as Partial<Record<Capability, CapabilityProbe>>;
  const capabilities = capabilityTable(found, options.settings.expect ?? []);
  // --expect: a capability the server does not offer fails the run even where no check of it ran.
  for (const row of capabilities) if (row.outcome === 'fail' && !results.some((r) => row.requirementIds.includes(r.id) && r.verdict === 'fail')) errors.push(`--expect ${row.name}: ${row.status === 'not-probed' ? 'no check probed it (deselected?)' : `the server ${row.status} it: ${row.detail}`}`);
  const report: ConformanceReport = {
    tool: { name: 'iari', version: packageVersion() },
    run: {
      id: options.runId,
      startedAt: started.toISOString(),
      durationMs: Math.round(performance.now() - t0),
      baseUrl: options.baseUrlDisplay,
      target: options.settings.target,
      seed: options.settings.seed,
      grade: options.selection.grade,
      profile,
      only: [...options.selection.only],
      skip: [...options.selection.skip],
      include: options.settings.includeLimits ? ['limits'] : [],
    },
    summary: summarize(results),
    results,
    coverage: coverageOf(requirements, exercisedIds()),
    usage,
    discovered,
    capabilities,
  };
  return { report, errors };
}
