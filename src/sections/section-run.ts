/**
 * Runs a list of result sections (section-contract.ts) for the load layer: one accumulator per
 * section, every measured request handed to each, the figures built and merged by key, the summary
 * lines, tiles and SLO metrics gathered in list order. Knows no section by name.
 */
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import type { AnyRunRecord, AnySection, SectionRunFigures, SectionBuildContext, SectionFormat, SectionMergeContext, SectionRequest, SectionSlo, SectionTile } from './section-contract.ts';

/** A result's sections by key (the part of load.json the sections own). */
export type SectionFigures = Readonly<Record<string, unknown>>;

/** A whole result as the summary and the report hand it over: its sections by key and the run's figures. */
export type SectionResult = SectionFigures & SectionRunFigures;

/** The accumulators of one run (or shard), one per section of its list. */
export class SectionAccumulators {
  readonly #list: readonly AnySection[];
  readonly #accs: unknown[];

  constructor(list: readonly AnySection[]) {
    assertUniqueKeys(list);
    this.#list = list;
    this.#accs = list.map((s) => s.open());
  }

  /** The sections, in list order. */
  get list(): readonly AnySection[] {
    return this.#list;
  }

  /** One measured request, to every section. */
  collect(request: SectionRequest): void {
    for (let i = 0; i < this.#list.length; i++) this.#list[i]?.collect(this.#accs[i], request);
  }

  /** What the sections give the live progress line: the run metrics their requests lack so far, and their own figures. */
  progress(): { lacks: ReadonlySet<string>; texts: string[] } {
    const lacks = new Set<string>();
    const texts: string[] = [];
    this.#list.forEach((s, i) => {
      const p = s.progress?.(this.#accs[i]);
      if (p === undefined || p === null) return;
      for (const m of p.lacks) lacks.add(m);
      texts.push(p.text);
    });
    return { lacks, texts };
  }

  /** Every section's figures by key; a section that builds nothing is absent. */
  build(ctx: SectionBuildContext): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.#list.forEach((s, i) => {
      const figures = s.build(this.#accs[i], ctx);
      if (figures !== undefined) out[s.key] = figures;
    });
    return out;
  }
}

/** The exact merge of shards' sections, by key: each section merges the parts that have it. */
export function mergeSections(list: readonly AnySection[], results: readonly SectionFigures[], ctx: SectionMergeContext): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of list) {
    const parts = results.map((r) => r[s.key]).filter((p) => p !== undefined);
    if (parts.length === 0) continue;
    const merged = s.merge(parts, ctx);
    if (merged !== undefined) out[s.key] = merged;
  }
  return out;
}

/** The summary lines of the sections at `place` that the result has, in list order. */
export function sectionLines(list: readonly AnySection[], result: SectionResult, place: AnySection['place'], fmt: SectionFormat): string[] {
  const run = runFigures(list, result);
  return list.flatMap((s) => {
    const figures = result[s.key];
    return s.place !== place || figures === undefined ? [] : [...s.summary(figures, fmt, run)];
  });
}

/** The run's figures a section sees, with what the result's sections say its requests lack. */
function runFigures(list: readonly AnySection[], result: SectionResult): SectionRunFigures {
  return { metrics: result.metrics, lacks: notApplicable(list, result), ...(result.counts === undefined ? {} : { counts: result.counts }), ...(result.timeslices === undefined ? {} : { timeslices: result.timeslices }) };
}

/** The tiles of the sections at `place` that the result has, in list order. */
export function sectionTiles(list: readonly AnySection[], result: SectionResult, place?: AnySection['place']): SectionTile[] {
  const run = runFigures(list, result);
  return list.flatMap((s) => {
    const figures = result[s.key];
    if ((place !== undefined && s.place !== place) || figures === undefined) return [];
    const tile = s.tile(figures, run);
    return tile === null ? [] : [tile];
  });
}

/** The section SLO metric named `metric`, with the key its figures are under. */
export function sectionSlo(list: readonly AnySection[], metric: string): { key: string; slo: SectionSlo<unknown> } | undefined {
  for (const s of list) {
    const slo = s.slos.find((x) => x.metric === metric);
    if (slo !== undefined) return { key: s.key, slo };
  }
  return undefined;
}

function assertUniqueKeys(list: readonly AnySection[]): void {
  const seen = new Set<string>();
  for (const s of list) {
    if (seen.has(s.key)) throw new HarnessError(HarnessErrorCode.INTERNAL, `two result sections under one key: ${s.key}`);
    seen.add(s.key);
  }
}

/** The run metrics that the result's sections say its requests do not have. */
export function notApplicable(list: readonly AnySection[], result: SectionFigures): ReadonlySet<string> {
  const out = new Set<string>();
  for (const s of list) {
    const figures = result[s.key];
    if (figures !== undefined && s.notApplicable !== undefined) for (const m of s.notApplicable(figures)) out.add(m);
  }
  return out;
}

/** The lines of the result's run records, in list order. */
export function recordLines(records: readonly AnyRunRecord[], result: SectionFigures): string[] {
  return records.flatMap((r) => {
    const out = result[r.key];
    const line = out === undefined ? null : r.line(out);
    return line === null ? [] : [line];
  });
}

/** Why the run was stopped, as the first of its records that says so (null: none). */
export function recordStop(records: readonly AnyRunRecord[], result: SectionFigures): string | null {
  for (const r of records) {
    const out = result[r.key];
    const stop = out === undefined ? null : r.stopped(out);
    if (stop !== null) return stop;
  }
  return null;
}

/** The window in which all the merged results ran, from the first record that knows it (null: none does). */
export function recordWindow(records: readonly AnyRunRecord[], results: readonly { figures: SectionFigures; startMs: number; endMs: number }[]): { startMs: number; endMs: number; firstS: number; endS: number } | null {
  for (const r of records) {
    if (r.mergeWindow === undefined || results.length === 0 || results.some((x) => x.figures[r.key] === undefined)) continue;
    const w = r.mergeWindow(results.map((x) => ({ record: x.figures[r.key], startMs: x.startMs, endMs: x.endMs })));
    if (w !== null) return w;
  }
  return null;
}
