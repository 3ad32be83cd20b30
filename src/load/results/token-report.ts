import { decodeHistogram, newHistogram, record, summarize, type Histogram } from './hdr.ts';
import type { PromptCountedBy, TokenComparison, TokenReport } from './load-result.ts';
import { tokenDistributionText } from './run-text.ts';
import { addCounts, zeroCounts } from '../../sections/counts.ts';
import type { ResultSection, SectionAsked, SectionTile } from '../../sections/section-contract.ts';
import { tileNum } from '../../sections/tile-format.ts';

/**
 * Prompt and output token distributions of the successful measured requests, and what the run
 * asked for against what the server says it received (usage.prompt_tokens, and the output count
 * of D-LOAD-03), compared over the same requests.
 */

/** Relative difference of the means above which the report says that asked and received differ. */
export const DIFFERENCE_THRESHOLD = 0.05;

interface PairAcc {
  requests: number;
  askedSum: number;
  receivedSum: number;
  /** Requests that received less than asked (output: the server stopped before max_tokens). */
  short: number;
  /** Requests that received more than asked. */
  long: number;
}

const pairCounts = ['requests', 'askedSum', 'receivedSum', 'short', 'long'] as const satisfies readonly (keyof PairAcc)[];
const pair = (): PairAcc => zeroCounts(pairCounts);

export class TokenAcc {
  readonly prompt: Histogram = newHistogram();
  readonly output: Histogram = newHistogram();
  readonly promptPair = pair();
  readonly outputPair = pair();
  /** Requests that asked for a prompt length but got no usage.prompt_tokens back. */
  promptUnreported = 0;

  constructor(
    readonly outputIs: 'target' | 'cap',
    readonly promptCountedBy: PromptCountedBy = 'o200k',
  ) {}

  /** A successful measured request: its received counts (prompt 0 = not reported) and what it asked. */
  add(promptTokens: number, outputTokens: number, asked: SectionAsked | null): void {
    if (promptTokens > 0) record(this.prompt, promptTokens);
    record(this.output, outputTokens);
    if (asked?.prompt !== null && asked?.prompt !== undefined) {
      if (promptTokens > 0) addPair(this.promptPair, asked.prompt, promptTokens);
      else this.promptUnreported++;
    }
    if (asked?.output !== null && asked?.output !== undefined) addPair(this.outputPair, asked.output, outputTokens);
  }
}

function addPair(p: PairAcc, asked: number, received: number): void {
  p.requests++;
  p.askedSum += asked;
  p.receivedSum += received;
  if (received < asked) p.short++;
  else if (received > asked) p.long++;
}

function comparison(p: PairAcc, kind: TokenComparison['kind']): TokenComparison | null {
  if (p.requests === 0) return null;
  const askedMean = p.askedSum / p.requests;
  const receivedMean = p.receivedSum / p.requests;
  return {
    kind,
    requests: p.requests,
    askedSum: p.askedSum,
    receivedSum: p.receivedSum,
    askedMean: round(askedMean, 2),
    receivedMean: round(receivedMean, 2),
    difference: askedMean === 0 ? 0 : round(receivedMean / askedMean - 1, 4),
    short: p.short,
    long: p.long,
  };
}

const round = (x: number, d: number): number => Math.round(x * 10 ** d) / 10 ** d;
const pct = (x: number): string => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;

/** One sentence per way what was asked differs from what was received (more than 5% apart, or not reported). */
export function tokenDifferences(r: Pick<TokenReport, 'promptComparison' | 'outputComparison' | 'promptUnreported' | 'promptCountedBy'>): string[] {
  const out: string[] = [];
  const p = r.promptComparison;
  if (p !== null && Math.abs(p.difference) > DIFFERENCE_THRESHOLD) {
    const server = r.promptCountedBy === 'server /tokenize';
    out.push(
      `prompt tokens differ: asked a mean of ${p.askedMean} (${server ? "the server's /tokenize count" : 'o200k count'} of the message text), the server counted ${p.receivedMean} (${pct(p.difference)}) over ${p.requests} requests; ` +
        (server ? 'a server counts its chat template too' : 'a server counts its chat template too and uses its own tokenizer (--tokenizer server counts with it)'),
    );
  }
  if (r.promptUnreported > 0) out.push(`prompt tokens: ${r.promptUnreported} requests got no usage.prompt_tokens back, so what the server received cannot be compared for them`);
  const o = r.outputComparison;
  if (o !== null && Math.abs(o.difference) > DIFFERENCE_THRESHOLD) {
    if (o.difference < 0) {
      out.push(
        `output tokens differ: asked a mean of ${o.askedMean} (max_tokens), received ${o.receivedMean} (${pct(o.difference)}); ${o.short} of ${o.requests} requests stopped before max_tokens. ` +
          `For exact lengths ask the server to ignore its end-of-sequence token where it supports it, e.g. --extra-body '{"ignore_eos":true}' (vLLM, llama.cpp server)`,
      );
    } else {
      out.push(`output tokens differ: asked a mean of ${o.askedMean} (max_tokens), received ${o.receivedMean} (${pct(o.difference)}); ${o.long} of ${o.requests} requests got more tokens than max_tokens allows`);
    }
  }
  return out;
}

export function buildTokenReport(acc: TokenAcc): TokenReport {
  const report = {
    prompt: acc.prompt.totalCount > 0 ? summarize(acc.prompt, 'tokens') : null,
    output: acc.output.totalCount > 0 ? summarize(acc.output, 'tokens') : null,
    outputIs: acc.outputIs,
    promptCountedBy: acc.promptCountedBy,
    promptComparison: comparison(acc.promptPair, 'target'),
    outputComparison: comparison(acc.outputPair, acc.outputIs),
    promptUnreported: acc.promptUnreported,
  };
  return { ...report, differences: tokenDifferences(report) };
}

/** Exact merge of shard reports: histograms and sums add, means and differences are recomputed. */
export function mergeTokenReports(reports: readonly (TokenReport | undefined)[]): TokenReport | undefined {
  const present = reports.filter((r): r is TokenReport => r !== undefined);
  const first = present[0];
  if (first === undefined) return undefined;
  const acc = new TokenAcc(first.outputIs, first.promptCountedBy ?? 'o200k');
  for (const r of present) {
    if (r.prompt !== null) acc.prompt.add(decodeHistogram(r.prompt.hdr));
    if (r.output !== null) acc.output.add(decodeHistogram(r.output.hdr));
    for (const [c, p] of [
      [r.promptComparison, acc.promptPair],
      [r.outputComparison, acc.outputPair],
    ] as const) {
      if (c === null) continue;
      addCounts(p, c, pairCounts);
    }
    acc.promptUnreported += r.promptUnreported;
  }
  return buildTokenReport(acc);
}

/** Summary-table lines: the distributions and asked-versus-received. */
export function tokenLines(r: TokenReport, outputApplies = true): string[] {
  const out: string[] = [];
  const dist = tokenDistributionText;
  const vs = (c: TokenComparison | null, what: string): string => (c === null ? '' : `; asked ${what} ${c.askedMean}, received ${c.receivedMean} (${pct(c.difference)})`);
  out.push(`prompt tokens (server usage): ${dist(r.prompt)}${vs(r.promptComparison, 'mean')}`);
  if (promptAsked(r)) out.push(`prompt lengths asked, counted by: ${countedByText(r.promptCountedBy)}`);
  out.push(outputApplies ? `output tokens: ${dist(r.output)}${vs(r.outputComparison, r.outputIs === 'target' ? 'mean' : 'max_tokens mean')}` : 'output tokens: not applicable (embeddings)');
  for (const d of r.differences) out.push(`DIFFERS: ${d}`);
  return out;
}

/** The run asked for prompt lengths (synthetic, datasets): then it says who counted them. */
const promptAsked = (r: TokenReport): boolean => r.promptComparison !== null || r.promptUnreported > 0 || r.promptCountedBy === 'server /tokenize';

function countedByText(by: PromptCountedBy | undefined): string {
  return by === 'server /tokenize' ? "the server's own tokenizer (POST /tokenize, --tokenizer server)" : "iari's o200k tokenizer (--tokenizer o200k; the server's may differ)";
}

function comparisonText(c: TokenComparison | null): string {
  return c === null ? '' : `; asked a mean of ${tileNum(c.askedMean, 1)}, received ${tileNum(c.receivedMean, 1)} (${c.difference >= 0 ? '+' : ''}${tileNum(c.difference * 100, 1)}%) over ${c.requests} requests`;
}

/** Its part of report.html: the differences as warnings at the top, the distributions as rows of the run's configuration. */
function tokenTile(r: TokenReport, outputApplies: boolean): SectionTile {
  return {
    id: 'tokens',
    title: 'Tokens',
    notes: r.differences.map((d) => ({ tone: 'warn' as const, text: `Asked and received differ: ${d}.` })),
    configRows: [
      ['prompt tokens', tokenDistributionText(r.prompt) + comparisonText(r.promptComparison)],
      ...(promptAsked(r) ? [['prompt lengths counted by', countedByText(r.promptCountedBy)] as [string, string]] : []),
      ['output tokens', outputApplies ? tokenDistributionText(r.output) + comparisonText(r.outputComparison) : 'not applicable (embeddings)'],
    ],
  };
}

/**
 * The `tokens` section of load.json, written by every run: `outputIs` says whether the workload's
 * output lengths are targets or max_tokens caps (default cap). Output tokens are not applicable when
 * a section says its requests have no output_tps (embeddings).
 */
export function tokenSection(outputIs: 'target' | 'cap' = 'cap', promptCountedBy: PromptCountedBy = 'o200k'): ResultSection<TokenReport, TokenAcc> {
  return {
    key: 'tokens',
    place: 'workload',
    open: () => new TokenAcc(outputIs, promptCountedBy),
    collect(acc, r) {
      if (r.outcome === 'ok') acc.add(r.timing.promptTokens, r.timing.outputTokens, r.asked);
    },
    build: (acc) => buildTokenReport(acc),
    merge: (parts) => mergeTokenReports(parts),
    summary: (out, _fmt, run) => tokenLines(out, run.lacks?.has('output_tps') !== true),
    tile: (out, run) => tokenTile(out, run.lacks?.has('output_tps') !== true),
    slos: [],
  };
}
