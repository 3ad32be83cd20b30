/**
 * The load result-section contract (issue 35, item 2; DESIGN.md: "Load results are sections behind
 * one contract too (collect, merge, summary, report tile, SLO names)").
 *
 * A section is one optional part of `load.json` (cache, tool calls, embeddings, ...): it collects
 * from each measured request, builds its figures at the end of a run, merges exactly across shards
 * (histograms add bucket by bucket, counts add; a percentile is never averaged), prints its summary
 * lines, describes its report.html tile as data, and names the SLOs it can judge. The collector,
 * the result builder, `iari report merge`, the summary and the load report iterate a list of
 * sections; a protocol (src/protocols/<api>/) ships its own section by handing one to that list.
 *
 * Floor: this file sits below src/load, src/report, src/checks and src/protocols, and imports
 * nothing from them (only src/sections/*). Everything a section reads arrives through the types below.
 */

/** One token-bearing event as the client stamped it (ns on the process.hrtime clock). */
export interface SectionTokenEvent {
  readonly atNs: bigint;
  readonly tokens: number;
  /** Reasoning (delta.reasoning_content or delta.reasoning), not answer. */
  readonly reasoning?: true;
}

/**
 * What the checked response said beyond its timing, as the protocol normalised it (load's
 * ResponseExtras satisfies it). A protocol's section reads its own facts from `counters`.
 */
export interface SectionResponseFacts {
  /** Input tokens served from the prompt cache (usage); null when the server did not report it. */
  readonly cachedTokens: number | null;
  /** The first answer's tool calls as assembled. */
  readonly toolCalls?: readonly { readonly name: string | null; readonly arguments: string }[];
  /** The answer stopped at its output-token bound. */
  readonly cutAtLimit?: true;
  /** When the first tool-call output arrived (a whole answer: its end), hrtime ns. */
  readonly firstToolCallNs?: bigint;
  /** The API's own counts for its section (embeddings: inputs, promptTokens, dimensions). */
  readonly counters?: Readonly<Record<string, number | null>>;
}

/**
 * The normalised timing of one request, as the load engines measured it (load's RequestTiming
 * satisfies it structurally, so the collector hands it over without copying). hrtime ns.
 */
export interface SectionTiming {
  readonly seq: number;
  /** Intended send (open loop) or actual send (closed loop): the origin of every latency. */
  readonly intendedNs: bigint;
  readonly sentNs: bigint;
  readonly tokenEvents: readonly SectionTokenEvent[];
  readonly outputTokens: number;
  readonly promptTokens: number;
  readonly reasoningTokens?: number;
  readonly reasoningSource?: 'usage' | 'tokenizer';
  /** A connection reuse race: sent once more on a fresh connection. */
  readonly reuseRace?: { readonly retriedNs: bigint };
  /** --cancel-rate chose this request to be cut (it may still have ended first). */
  readonly cancelPlanned?: true;
  readonly extras?: SectionResponseFacts;
}

/** What the workload asked of request `seq` (token-length workloads, conversations). */
export interface SectionAsked {
  readonly prompt: number | null;
  readonly output: number | null;
  /** Conversations: the turn index (0 = first) and the conversation's number. */
  readonly turn?: number;
  readonly conversation?: number;
}

/**
 * One measured request as every section sees it: how it ended, its timing, and the figures the
 * collector already derived from it (so no section derives them twice). Warmup requests never reach
 * a section.
 *
 * - `ok`: answered without error (the only outcome whose latencies are samples);
 * - `failed`: ended with an error (counted in `errors` by its class);
 * - `aborted`: still in flight when the run ended (neither an error nor a sample);
 * - `cancelled`: cut by the client (--cancel-rate), `cut` says when and after how many token events.
 */
export interface SectionRequest {
  readonly outcome: 'ok' | 'failed' | 'aborted' | 'cancelled';
  readonly timing: SectionTiming;
  /** Origin to the first token-bearing event, µs (null: none). */
  readonly ttftUs: number | null;
  /** Origin to the end of the response, µs (null unless ok or failed). */
  readonly e2eUs: number | null;
  /** What the workload asked of this request (null: a plain prompt workload). */
  readonly asked: SectionAsked | null;
  /** `cancelled` only: send to cut, µs, and the token-bearing events received before it. */
  readonly cut?: { readonly afterUs: number; readonly tokens: number };
}

/** What `build` knows about the run when it ends. */
export interface SectionBuildContext {
  /** The measured window, seconds (> 0). */
  readonly windowS: number;
  /** Measured requests that finished (ok or failed). */
  readonly finished: number;
  readonly openLoop: boolean;
}

/** What `merge` knows about the shards it merges. */
export interface SectionMergeContext {
  /** The merged measured window, seconds (> 0): rates are recomputed over it, never summed. */
  readonly windowS: number;
  /** How many results are merged (parts may be fewer: a shard without the section gives none). */
  readonly results: number;
}

/** A histogram as load.json summarises it (load's HistogramSummary satisfies it). */
export interface SectionHistogram {
  readonly count: number;
  readonly min: number;
  readonly max: number;
  readonly mean: number;
  readonly percentiles: { readonly p50: number; readonly p90: number; readonly p95: number; readonly p99: number; readonly 'p99.9': number };
  /** hdr-histogram-js `encodeIntoCompressedBase64` of the whole histogram (merges add these). */
  readonly hdr: string;
}

/**
 * The run-wide figures a section may show beside its own (reasoning's TTFO beside the run's TTFT),
 * read-only; the load result satisfies it.
 */
export interface SectionRunFigures {
  /** The run's latency histograms by metric name (ttft, itl, e2e, ...), only those with samples. */
  readonly metrics: Readonly<Partial<Record<string, SectionHistogram>>>;
  /** The run metrics the result's sections say its requests do not have (section-run.ts fills it in). */
  readonly lacks?: ReadonlySet<string>;
  /**
   * The run's counts a section may show beside its own: the warmup requests it excluded (a section
   * whose window is the whole run, warmup included, says so). Absent: not known (a toy result).
   */
  readonly counts?: { readonly warmupExcluded: number };
  /**
   * The run's seconds (load.json `timeslices`), for a section that lines its own per-second figures
   * up with the client's (report.html's over-time charts). Absent or empty: none.
   */
  readonly timeslices?: readonly SectionTimeslice[];
}

/** One second of the run as load.json's timeslices give it (load's Timeslice satisfies it). */
export interface SectionTimeslice {
  /** Seconds since the measured window's start. */
  readonly tS: number;
  /** Output tokens of the answers that ended in the second. */
  readonly outputTokens: number;
  /** The TTFT histogram of the requests that finished in the second, hdr compressed base64 ('' none). */
  readonly ttftHdr: string;
}

/** Formatting the summary lines share with the rest of the summary (load's fmtUs). */
export interface SectionFormat {
  /** A duration in µs as the summary prints it ('-' for null or undefined). */
  readonly us: (us: number | null | undefined) => string;
}

/** A stat of a tile: the big figure with its label (report.html's stat grid). */
export interface TileStat {
  readonly label: string;
  readonly value: string;
  readonly hint?: string;
  readonly tone?: 'good' | 'bad' | 'warn' | 'info' | 'neutral';
}

/** A table cell: text, or a code name with a muted explanation, or emphasised text, or a verdict badge (a coloured label). */
export type TileCell = string | { readonly code: string; readonly note: string } | { readonly strong: string } | { readonly badge: string; readonly tone: 'good' | 'bad' | 'warn' | 'neutral' };

/** A chart of a tile, drawn by src/report (values in the unit `format` names). */
export type TileChart =
  | {
      readonly kind: 'bars';
      readonly title: string;
      readonly series: readonly string[];
      readonly groups: readonly { readonly label: string; readonly values: readonly (number | null)[] }[];
      readonly xLabel: string;
      /** How a value is labelled: 'ms' (milliseconds), 'percent', or plain. */
      readonly format: 'ms' | 'percent' | 'plain';
    }
  | {
      readonly kind: 'lines';
      readonly title: string;
      /** `tone`: a series drawn in a verdict's colour (`bad`: the one to watch, e.g. waiting requests) rather than the next palette colour. */
      readonly series: readonly { readonly name: string; readonly tone?: 'good' | 'bad' | 'warn'; readonly points: readonly { readonly x: number; readonly y: number }[] }[];
      readonly xLabel: string;
      /** Integer ticks only (turns, steps). */
      readonly xIntegers: boolean;
      readonly yLabel: string;
      readonly format: 'ms' | 'plain';
      /** The x axis's range (absent: the points' extent), so charts of one time axis line up. */
      readonly xDomain?: readonly [number, number];
      /** Break a series' line where consecutive x differ by more than this (a gap in the seconds is not drawn as a slope). */
      readonly breakOver?: number;
    };

/** A status line at the top of the report (a warning or a note about the run). */
export interface TileNote {
  readonly tone: 'good' | 'bad' | 'warn' | 'neutral';
  readonly text: string;
}

/**
 * A section's part of report.html, as data: src/report renders it (so the contract does not depend
 * on the report). Every field is optional but the title; an empty tile renders nothing.
 */
export interface SectionTile {
  /** The HTML id of its section (stable: links point at it). */
  readonly id: string;
  readonly title: string;
  /** Status lines shown at the top of the report, above the overview. */
  readonly notes?: readonly TileNote[];
  /** Stats added to the run's summary grid (beside requests/s), e.g. an API's own throughput. */
  readonly overview?: readonly TileStat[];
  /** Rows added to the run's configuration table ([label, value]). */
  readonly configRows?: readonly (readonly [string, string])[];
  readonly stats?: readonly TileStat[];
  /** A muted paragraph under the stats. */
  readonly caption?: string;
  /**
   * `after`: the table goes below the charts, under its own heading (`title`), for a tile whose
   * charts lead and whose table is the verdicts on them (server's reconciliation). Absent: the table
   * goes before or beside the charts.
   */
  readonly table?: { readonly head: readonly string[]; readonly rows: readonly (readonly TileCell[])[]; readonly numeric: readonly number[]; readonly after?: { readonly title: string } };
  readonly charts?: readonly TileChart[];
  /** The TOC link's text at the top of the report (absent: the section has no link). */
  readonly toc?: string;
}

/**
 * An SLO metric the section can judge (`--slo 'tool_calls.invalid_rate<1%'`): its name, statistics
 * and unit, and how it reads its value from the section's figures.
 */
export interface SectionSlo<Out> {
  /** The metric name before the dot (e.g. `tool_calls`); unique over every section. */
  readonly metric: string;
  readonly stats: readonly string[];
  /** ratio: a fraction (thresholds may be given in %, must be 0..1); per_s; us (needs a time unit); count. */
  readonly unit: 'ratio' | 'per_s' | 'us' | 'count';
  /** One line of `--slo` help. */
  readonly help: string;
  /** The observed value of `stat` (null: no sample; the SLO is then not met, with `noData` as the reason). */
  observe(out: Out | undefined, stat: string): number | null;
  /** Why there is no value (shown in the SLO's result). */
  readonly noData: string;
  /**
   * Why there is no value of this stat in these figures, when that differs by stat or by what the
   * figures hold (server: "the server publishes no waiting signal", "the run read no server
   * metrics"). Absent: `noData`.
   */
  noDataFor?(out: Out | undefined, stat: string): string;
  /**
   * The section's own grammar for `--slo` expressions starting `<metric>.` (server.reconcile takes
   * no operator; server.preemptions==0 takes `==`): the parsed SLO, or why not (a usage error).
   * Absent: the common `<metric>.<stat><op><number>[unit]` grammar with `stats` and `unit`.
   */
  parse?(expr: string): SectionSloParsed | string;
  /**
   * Judged even when no measured request finished (the section's figures do not come from the
   * requests: the server's own counters). Absent: such a run's SLO has no data.
   */
  readonly judgeWithoutRequests?: true;
}

/** An SLO as a section's own grammar parsed it (`SectionSlo.parse`). */
export interface SectionSloParsed {
  readonly stat: string;
  readonly op: '<' | '<=' | '>' | '>=' | '==';
  readonly threshold: number;
  readonly unit: 'ratio' | 'per_s' | 'us' | 'count';
}

/**
 * One optional part of load.json behind the contract. `Acc` is the run's live accumulator, `Out`
 * the figures written under `key`. A section instance carries its run's configuration (bound when
 * the run builds its list of sections), so the members take only what every section needs.
 */
export interface ResultSection<Out, Acc = unknown> {
  /** Its key in load.json (e.g. `cache`); unique in a list; absent from the file when `build` gives undefined. */
  readonly key: string;
  /**
   * Where its summary lines and tile go: `workload` after the token figures (summary) and the
   * distributions (report); `outcome` after the errors line (summary) and after the errors card (report);
   * `end` at the summary's end, after a blank line (a block of its own), and after the report's
   * over-time charts (a section that reads the run's seconds: the server's).
   * Any place's notes and configuration rows go to the top of the report.
   */
  readonly place: 'workload' | 'outcome' | 'end';
  /** A fresh accumulator for one run (or one shard). */
  open(): Acc;
  /**
   * One measured request (warmup never reaches it). Called on the load client's hot path: allocate
   * little. A section whose figures are not per request (read from elsewhere when the run ends, bound
   * into the instance) collects nothing: `collect() {}`, and `build` reads its source.
   */
  collect(acc: Acc, request: SectionRequest): void;
  /** The figures at the end of the run; undefined: the section is absent from load.json (nothing seen, or not asked). */
  build(acc: Acc, ctx: SectionBuildContext): Out | undefined;
  /**
   * The exact merge of shards' figures (only the parts that have the section): histograms add
   * bucket by bucket and counts add, rates are recomputed over `ctx.windowS`; never an averaged
   * percentile. Undefined: absent from the merged file.
   */
  merge(parts: readonly Out[], ctx: SectionMergeContext): Out | undefined;
  /** Its lines of the summary printed at the end of a run (none: nothing to say). */
  summary(out: Out, fmt: SectionFormat, run: SectionRunFigures): readonly string[];
  /** Its report.html tile (null: nothing to show). */
  tile(out: Out, run: SectionRunFigures): SectionTile | null;
  /** The SLO metrics it judges (none: empty). */
  readonly slos: readonly SectionSlo<Out>[];
  /**
   * The run metrics its requests do not have (an embeddings answer arrives whole: ttft, itl, tpot,
   * output_tps): the summary and the report say "not applicable", never 0. Absent: none.
   */
  notApplicable?(out: Out): readonly string[];
  /**
   * What the live progress line shows of it while the run goes (null: nothing yet): the run metrics
   * its requests lack so far (the line then shows e2e for ttft, its text for the token count) and
   * its own figure (`inputs 120`). Absent: nothing.
   */
  progress?(acc: Acc): { readonly lacks: readonly string[]; readonly text: string } | null;
}

/**
 * A list of sections of any figures (each keeps its own types behind the contract; the members are
 * methods, so a `ResultSection<CacheReport, CacheAcc>` is one).
 */
export type AnySection = ResultSection<unknown, unknown>;

/**
 * A record of the run under `key` in load.json, not per request: who made the run and how (a
 * coordinated shard's clock and start, the coordinator's shards, skew and stop). The run's maker
 * writes it (a coordinated shard after its run, the coordinator on its merge), so it has no
 * accumulator and no build; `iari report merge` keeps no part of it (a merged record is the
 * coordinator's). The summary, report.html, the run's verdict and the merge's window read it
 * through the list of records, never by name.
 */
export interface RunRecord<Out> {
  /** Its key in load.json; unique over the records and the sections. */
  readonly key: string;
  /** Its line under the summary's first line and its status line at the top of the report (null: nothing to say). */
  line(out: Out): string | null;
  /** Why the run was stopped before its end, as the record says (the run fails naming it; null: it was not). */
  stopped(out: Out): string | null;
  /**
   * When every merged result carries the record and the record says the results ran as one (one
   * clock, one start), the window in which all ran (epoch ms, and its whole seconds [firstS, endS)):
   * the merge judges rates over it. Null: the union of the results' windows.
   */
  mergeWindow?(parts: readonly { readonly record: Out; readonly startMs: number; readonly endMs: number }[]): { startMs: number; endMs: number; firstS: number; endS: number } | null;
}

/** A list of run records of any figures. */
export type AnyRunRecord = RunRecord<unknown>;
