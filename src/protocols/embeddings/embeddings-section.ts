// Embeddings' part of load.json (its API's result section, Protocol.resultSections): the figures'
// type, how a run collects, builds and merges them, its summary lines, tile and SLO.
import type { AnySection, ResultSection, SectionSlo, SectionTile } from '../../sections/section-contract.ts';
import { tileNum } from '../../sections/tile-format.ts';
import type { ProtocolSectionRun } from '../protocol.ts';

/** The embeddings workload (--embeddings-batch): its own throughput over the successful measured requests. */
export interface EmbeddingsReport {
  /** Inputs per request asked (--embeddings-batch). */
  batch: number;
  requests: number;
  inputs: number;
  inputsPerS: number;
  /** usage.prompt_tokens summed (answers without usage count 0 and are counted in requestsWithoutUsage). */
  promptTokens: number;
  promptTokensPerS: number;
  requestsWithoutUsage: number;
  /** Inputs per request, as answered. */
  inputsPerRequest: { mean: number; min: number; max: number };
  /** Every vector length the answers had. */
  dimensions: number[];
  /** Metrics that do not apply (whole answers, no output tokens): never reported as 0. */
  notApplicable: string[];
}

/**
 * The embeddings workload's own figures (--embeddings-batch), over its successful measured
 * requests: inputs embedded and their rate, prompt tokens (usage.prompt_tokens, as the server
 * counted them) and their rate, the batch size (inputs per request) and the vector length. An
 * embeddings answer arrives whole and generates nothing: TTFT, ITL, TPOT and output tokens/s do
 * not apply to it, and the report says so rather than showing a 0.
 */
export class EmbeddingsAcc {
  requests = 0;
  inputs = 0;
  promptTokens = 0;
  withoutUsage = 0;
  batchMin: number | null = null;
  batchMax: number | null = null;
  /** Every vector length seen (one, unless the server's lengths changed between answers). */
  readonly dimensions = new Set<number>();

  add(e: { inputs: number; promptTokens: number | null; dimensions: number | null }): void {
    this.requests++;
    this.inputs += e.inputs;
    if (e.promptTokens === null) this.withoutUsage++;
    else this.promptTokens += e.promptTokens;
    this.batchMin = this.batchMin === null ? e.inputs : Math.min(this.batchMin, e.inputs);
    this.batchMax = this.batchMax === null ? e.inputs : Math.max(this.batchMax, e.inputs);
    if (e.dimensions !== null) this.dimensions.add(e.dimensions);
  }
}

/** What an embeddings run does not measure, named in load.json, the summary and report.html. */
export const EMBEDDINGS_NOT_APPLICABLE = ['ttft', 'itl', 'tpot', 'output_tps'] as const;

export function buildEmbeddingsReport(a: EmbeddingsAcc, windowS: number, batch: number): EmbeddingsReport {
  const w = Math.max(1e-9, windowS);
  return {
    batch,
    requests: a.requests,
    inputs: a.inputs,
    inputsPerS: round3(a.inputs / w),
    promptTokens: a.promptTokens,
    promptTokensPerS: round3(a.promptTokens / w),
    requestsWithoutUsage: a.withoutUsage,
    inputsPerRequest: { mean: a.requests === 0 ? 0 : round3(a.inputs / a.requests), min: a.batchMin ?? 0, max: a.batchMax ?? 0 },
    dimensions: [...a.dimensions].sort((x, y) => x - y),
    notApplicable: [...EMBEDDINGS_NOT_APPLICABLE],
  };
}

/** Adds the embeddings figures of several results (shards) over the merged window. */
export function mergeEmbeddingsReports(reports: readonly (EmbeddingsReport | undefined)[], windowS: number): EmbeddingsReport | undefined {
  const given = reports.filter((r): r is EmbeddingsReport => r !== undefined);
  const first = given[0];
  if (first === undefined) return undefined;
  const acc = new EmbeddingsAcc();
  for (const r of given) {
    acc.requests += r.requests;
    acc.inputs += r.inputs;
    acc.promptTokens += r.promptTokens;
    acc.withoutUsage += r.requestsWithoutUsage;
    if (r.requests > 0) {
      acc.batchMin = acc.batchMin === null ? r.inputsPerRequest.min : Math.min(acc.batchMin, r.inputsPerRequest.min);
      acc.batchMax = acc.batchMax === null ? r.inputsPerRequest.max : Math.max(acc.batchMax, r.inputsPerRequest.max);
    }
    for (const d of r.dimensions) acc.dimensions.add(d);
  }
  return buildEmbeddingsReport(acc, windowS, first.batch);
}

/** The summary lines of an embeddings run (none for a chat run). */
export function embeddingsLines(r: EmbeddingsReport | undefined): string[] {
  if (r === undefined) return [];
  const usage = r.requestsWithoutUsage > 0 ? `; ${r.requestsWithoutUsage} answers without usage` : '';
  return [
    `embeddings: ${r.inputs} inputs in ${r.requests} successful requests: ${r.inputsPerS} inputs/s, ${r.promptTokensPerS} prompt tok/s (usage.prompt_tokens${usage}); batch ${r.batch} inputs per request (${r.requests === 0 ? 'none answered' : `answered ${r.inputsPerRequest.min}..${r.inputsPerRequest.max}`}); vector length ${r.dimensions.length === 0 ? 'none seen' : r.dimensions.join(', ')}`,
    `embeddings: ${r.notApplicable.join(', ')} not applicable (an embeddings answer arrives whole and generates no tokens)`,
  ];
}

function embeddingsTile(e: EmbeddingsReport): SectionTile {
  return {
    id: 'embeddings',
    title: 'Embeddings',
    overview: [
      { label: 'inputs/s', value: tileNum(e.inputsPerS, 1), tone: 'info', hint: `${tileNum(e.inputs, 0)} inputs embedded, ${e.batch} per request` },
      { label: 'prompt tokens/s', value: tileNum(e.promptTokensPerS, 0), hint: `usage.prompt_tokens${e.requestsWithoutUsage > 0 ? `; ${e.requestsWithoutUsage} answers without usage` : ''}` },
      { label: 'batch (inputs/request)', value: `${e.batch}`, hint: `answered ${e.inputsPerRequest.min}..${e.inputsPerRequest.max}; vector length ${e.dimensions.join(', ') || 'none seen'}` },
    ],
  };
}

/** `--slo 'embeddings.inputs_per_s>=100'`: the workload's own throughput (no successful request: no data). */
const embeddingsSlo: SectionSlo<EmbeddingsReport> = {
  metric: 'embeddings',
  stats: ['inputs_per_s', 'prompt_tokens_per_s'],
  unit: 'per_s',
  help: 'with --embeddings-batch: embeddings.inputs_per_s>=100, embeddings.prompt_tokens_per_s>=5000',
  observe(e, stat) {
    if (e === undefined || e.requests === 0) return null;
    return stat === 'inputs_per_s' ? e.inputsPerS : e.requestsWithoutUsage === e.requests ? null : e.promptTokensPerS;
  },
  noData: 'no successful request gave a embeddings sample in the measured window',
};

/** An embeddings answer's counters (its protocol's facts: inputs embedded, usage's prompt tokens, the vector length). */
function embeddingsCounts(c: Readonly<Record<string, number | null>> | undefined): { inputs: number; promptTokens: number | null; dimensions: number | null } | undefined {
  const inputs = c?.['inputs'];
  return typeof inputs !== 'number' ? undefined : { inputs, promptTokens: c?.['promptTokens'] ?? null, dimensions: c?.['dimensions'] ?? null };
}

/** The `embeddings` section of load.json: absent without --embeddings-batch (`batch` undefined). */
export function embeddingsSection(batch?: number): ResultSection<EmbeddingsReport, EmbeddingsAcc> {
  return {
    key: 'embeddings',
    place: 'workload',
    open: () => new EmbeddingsAcc(),
    collect(acc, r) {
      if (r.outcome !== 'ok') return;
      const counted = embeddingsCounts(r.timing.extras?.counters);
      if (counted !== undefined) acc.add(counted);
    },
    build: (acc, ctx) => (batch === undefined ? undefined : buildEmbeddingsReport(acc, ctx.windowS, batch)),
    merge: (parts, ctx) => mergeEmbeddingsReports(parts, ctx.windowS),
    summary: (out) => embeddingsLines(out),
    tile: embeddingsTile,
    slos: [embeddingsSlo],
    notApplicable: (out) => out.notApplicable,
    progress: (acc) => (acc.requests === 0 ? null : { lacks: EMBEDDINGS_NOT_APPLICABLE, text: `inputs ${acc.inputs}` }),
  };
}

/**
 * The embeddings API's result sections (Protocol.resultSections): its section is bound to a run's
 * embeddings workload (`workload.embeddings.batch`, --embeddings-batch); unbound (merging, reports)
 * or without that workload it builds nothing.
 */
export function embeddingsSections(run?: ProtocolSectionRun): readonly AnySection[] {
  const given = run?.workload?.['embeddings'];
  const batch = typeof given === 'object' && given !== null && typeof (given as { batch?: unknown }).batch === 'number' ? (given as { batch: number }).batch : undefined;
  return [embeddingsSection(batch) as AnySection];
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;
