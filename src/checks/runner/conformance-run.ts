import { packageVersion } from '../../package-root.ts';
import type { ConformanceReport } from './conformance-report.ts';
import type { RunSettings } from '../context/check-context.ts';
import type { CheckRun, Selection, UsageSection } from './conformance-results.ts';
import { buildResults, coverageOf, deselectionReason, summarize } from './conformance-results.ts';
import { requirementInfos } from '../registry/registry-view.ts';
import { catalogOf } from './catalog.ts';
import { defaultProtocols } from '../../protocols/registry.ts';
import { createCheckContext } from '../context/check-context.ts';
import { gradeFor } from '../registry/registry-view.ts';
import { catalogIds, runChecksInProcess } from './run-catalog.ts';
import { fetchUsageDays } from './usage-heatmap.ts';
import { capabilityTable } from '../registry/capabilities.ts';

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
  /** Errors outside any check (a check that escaped its runner): they make the run fail. */
  errors: string[];
}

/** Runs the check catalog in this process against one server and folds everything into a ConformanceReport. */
export async function runConformance(options: ConformanceRunOptions): Promise<ConformanceRunOutput> {
  const started = new Date();
  const t0 = performance.now();
  // D-GRADE-04: under --profile strict, profile requirements are judged, selected and reported as SHOULD.
  const profile = options.settings.profile ?? 'default';
  const protocols = options.settings.protocols ?? defaultProtocols;
  const requirements = [...requirementInfos(profile, protocols).values()];
  const selectedIds = requirements.filter((r) => deselectionReason(r, options.selection) === undefined).map((r) => r.id);
  const errors: string[] = [];
  const ctx = createCheckContext(options.settings);
  const checks = catalogOf(protocols);
  const { runs } = await runChecksInProcess(ctx, checks, gradeFor(profile, protocols), {
    selected: new Set(selectedIds),
    ...(options.onResult === undefined ? {} : { onResult: options.onResult }),
  })
    .catch((error: unknown) => {
      errors.push(ctx.http.redact(error instanceof Error ? error.message : String(error)));
      return { runs: [] };
    })
    .finally(() => ctx.close());
  const discovered = runs.findLast((r) => r.discovered?.usage !== undefined)?.discovered ?? {};
  const usage: UsageSection = await fetchUsageDays(options.settings, discovered.usage);
  const results = buildResults(requirements, runs, options.selection);
  const capabilities = capabilityTable(ctx.capabilities.snapshot(), options.settings.expect ?? [], protocols);
  // --expect: a capability the server does not offer fails the run even where no check of it ran.
  const runFailures = [...errors];
  for (const row of capabilities) if (row.outcome === 'fail' && !results.some((r) => row.requirementIds.includes(r.id) && r.verdict === 'fail')) runFailures.push(`--expect ${row.name}: ${row.status === 'not-probed' ? 'no check probed it (deselected?)' : `the server ${row.status} it: ${row.detail}`}`);
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
      ...(options.selection.scope === undefined || options.selection.scope === 'interface' ? {} : { scope: options.selection.scope }),
      ...(options.selection.noToken === undefined ? {} : { noToken: options.selection.noToken }),
      include: options.settings.includeLimits ? ['limits'] : [],
    },
    summary: summarize(results),
    results,
    coverage: coverageOf(requirements, catalogIds(checks)),
    usage,
    discovered,
    capabilities,
    runFailures,
  };
  return { report, errors };
}
