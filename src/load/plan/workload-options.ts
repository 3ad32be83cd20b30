import { readFileSync } from 'node:fs';
import { HarnessError, HarnessErrorCode } from '../../errors.ts';
import { readDataset } from '../workloads/dataset.ts';
import { parseTraceWindow, readTrace, type TraceOptions } from '../workloads/trace.ts';
import { BUILTIN_TOOLS, judge, TOOL_CALL_OUTPUT_FLOOR, type ToolDef, type ToolsSpec } from '../workloads/tool-calls.ts';
import { checkDuration } from '../../duration.ts';
import { checkChoice, checkNumber, checkText, loadUsage, renamed, renamedAsync, RUN_LOAD_NAMES, type LoadNames, type LoadOptions } from './load-option-names.ts';
import { RESERVED_BODY_KEYS, type MaxTokensField, type PrefixSpec, type TokenLength, type WorkloadSpec } from '../workloads/workload.ts';

/** `MEAN[,STDEV]` in tokens (`turns`: in turns). */
export function parseTokenLength(option: 'inputTokens' | 'outputTokens' | 'turns', value: string, names: LoadNames = RUN_LOAD_NAMES): TokenLength {
  const label = names.name(option);
  // --turns is a length in turns, --input-tokens and --output-tokens in tokens: the message says which.
  const unit = option === 'turns' ? 'turns' : 'tokens';
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:,\s*(\d+(?:\.\d+)?)\s*)?$/.exec(value);
  if (m === null) throw loadUsage(names, `${label} must be MEAN or MEAN,STDEV in ${unit}, e.g. ${option === 'turns' ? '4 or 4,1' : '512 or 512,64'}; got "${value}"`);
  const mean = Number(m[1]);
  const stdev = m[2] === undefined ? 0 : Number(m[2]);
  if (mean < 1 || mean > 1_000_000) throw loadUsage(names, `${label}: the mean must be from 1 to 1000000 ${unit}, got ${mean}`);
  if (stdev > mean * 10) throw loadUsage(names, `${label}: the standard deviation ${stdev} is more than ten times the mean`);
  return { mean, stdev };
}

/** `extraBody` (`--extra-body`): JSON text or `@FILE`, a JSON object that does not set what iari sets itself. */
export function parseExtraBody(value: string, names: LoadNames = RUN_LOAD_NAMES): Record<string, unknown> {
  const n = names.name;
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = readFileSync(value.slice(1), 'utf8');
    } catch (error) {
      throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `${names.who}: cannot read ${n('extraBody')} ${value}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw loadUsage(names, `${n('extraBody')} is not JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw loadUsage(names, `${n('extraBody')} must be a JSON object, e.g. '{"ignore_eos":true}'`);
  const body = parsed as Record<string, unknown>;
  for (const key of RESERVED_BODY_KEYS) {
    if (key in body) {
      const use = key === 'max_tokens' || key === 'max_completion_tokens' ? `${n('outputTokens')}, ${n('maxTokens')} or ${n('maxTokensField')}` : key === 'model' ? n('model') : key === 'messages' ? `${n('prompts')}, ${n('dataset')} or ${n('inputTokens')}` : n('stream');
      throw loadUsage(names, `${n('extraBody')} cannot set "${key}": iari sets it (use ${use})`);
    }
  }
  return body;
}

export type WorkloadOptions = Pick<LoadOptions, (typeof WORKLOAD_OPTIONS)[number] | 'prompts' | 'maxTokens'>;

/** The options that shape what each request asks for (the workload rows of load-flag-table.ts). */
const WORKLOAD_OPTIONS = ['inputTokens', 'tokenizer', 'outputTokens', 'extraBody', 'dataset', 'datasetSize', 'maxTokensField', 'prefixTokens', 'prefixGroups', 'turns', 'thinkTime', 'chain', 'trace', 'traceFormat', 'traceSpeed', 'traceWindow', 'tools', 'toolShare', 'embeddingsBatch', 'embeddingsFormat'] as const satisfies readonly (keyof LoadOptions)[];

export interface WorkloadPlan {
  /** The workload without its dataset conversations (read by `resolveWorkload`); undefined: none asked. */
  spec: WorkloadSpec | undefined;
  dataset: { file: string; size: number } | null;
  /** --trace: read by `resolveWorkload` (before any traffic). */
  trace?: { file: string; options: TraceOptions };
}

/** Validates the typed workload options before any traffic (exit 2 on a bad or contradictory one), naming them as `names` does. */
export function validateWorkload(o: WorkloadOptions, names: LoadNames = RUN_LOAD_NAMES): WorkloadPlan {
  const n = names.name;
  const usage = (message: string): HarnessError => loadUsage(names, message);
  if (!WORKLOAD_OPTIONS.some((k) => o[k] !== undefined)) return { spec: undefined, dataset: null };
  const chosen = toolsFromOptions(o.tools === undefined ? undefined : checkText(names, 'tools', o.tools), o.toolShare, names);
  // A trace, --output-tokens or --max-tokens chose the output length: kept as asked.
  const lengthChosen = o.maxTokens !== undefined || o.outputTokens !== undefined || o.trace !== undefined;
  const tools = chosen === undefined || lengthChosen ? chosen : { ...chosen, outputFloor: TOOL_CALL_OUTPUT_FLOOR };
  const extraBody = (): Record<string, unknown> | null => (o.extraBody === undefined ? null : parseExtraBody(checkText(names, 'extraBody', o.extraBody), names));
  const embeddings = embeddingsFromOptions(o, names);
  const countedBy = tokenizerFromOptions(o, names);
  const trace = traceFromOptions(o, names);
  if (trace !== undefined) {
    return { spec: { ...(tools === undefined ? {} : { tools }), input: { kind: 'prompts' }, output: null, maxTokensField: (o.maxTokensField ?? 'max_tokens') as MaxTokensField, extraBody: extraBody() }, dataset: null, trace };
  }
  if (o.inputTokens !== undefined && o.prompts !== undefined) throw usage(`give ${n('inputTokens')} (synthetic prompts) or ${n('prompts')}, not both`);
  if (o.inputTokens !== undefined && o.dataset !== undefined) throw usage(`give ${n('inputTokens')} (synthetic prompts) or ${n('dataset')}, not both`);
  if (o.dataset !== undefined && o.prompts !== undefined) throw usage(`give ${n('dataset')} or ${n('prompts')}, not both (${n('dataset')} reads the ${n('prompts')} format too)`);
  if (o.outputTokens !== undefined && o.maxTokens !== undefined) throw usage(`give ${n('outputTokens')} (a length per request) or ${n('maxTokens')} (one cap), not both`);
  if (o.datasetSize !== undefined && o.dataset === undefined) throw usage(`${n('datasetSize')} needs ${n('dataset')}`);
  const field = checkField(o.maxTokensField, names);
  const size = o.datasetSize === undefined ? 1000 : checkNumber(names, 'datasetSize', o.datasetSize);
  const prefix = prefixFromOptions(o.prefixTokens, o.prefixGroups, names);
  if (o.thinkTime !== undefined && o.turns === undefined) throw usage(`${n('thinkTime')} needs ${n('turns')} (it is the pause between turns of a conversation)`);
  if (o.chain !== undefined && o.turns === undefined) throw usage(`${n('chain')} needs ${n('turns')} (it is how a conversation's later turns are sent)`);
  if (o.chain !== undefined) checkChoice(names, 'chain', o.chain);
  const conversation = o.turns === undefined ? undefined : { turns: parseTokenLength('turns', checkText(names, 'turns', o.turns), names), thinkTimeMs: o.thinkTime === undefined ? 0 : checkDuration(names.who, n('thinkTime'), o.thinkTime, 0, 600), ...(o.chain === 'previous-response-id' ? { chain: o.chain } : {}) };
  if (conversation !== undefined && conversation.turns.mean > 1000) throw usage(`${n('turns')}: at most 1000 turns per conversation, got ${conversation.turns.mean}`);
  const spec: WorkloadSpec = {
    ...(tools === undefined ? {} : { tools }),
    ...(prefix === undefined ? {} : { prefix }),
    ...(conversation === undefined ? {} : { conversation }),
    input: o.inputTokens !== undefined ? { kind: 'synthetic', length: parseTokenLength('inputTokens', checkText(names, 'inputTokens', o.inputTokens), names), ...(countedBy === 'server' ? { tokenizer: countedBy } : {}) } : { kind: 'prompts' },
    output: o.outputTokens === undefined ? null : parseTokenLength('outputTokens', checkText(names, 'outputTokens', o.outputTokens), names),
    maxTokensField: field,
    extraBody: extraBody(),
    ...(embeddings === undefined ? {} : { embeddings }),
  };
  return { spec, dataset: o.dataset === undefined ? null : { file: checkText(names, 'dataset', o.dataset), size } };
}

/** `tokenizer` (`--tokenizer o200k|server`): server counts only plain synthetic chat prompts for now. */
function tokenizerFromOptions(o: WorkloadOptions, names: LoadNames): 'o200k' | 'server' {
  if (o.tokenizer === undefined) return 'o200k';
  const t = checkChoice(names, 'tokenizer', o.tokenizer);
  if (t === 'o200k') return t;
  const n = names.name;
  if (o.inputTokens === undefined) throw loadUsage(names, `${n('tokenizer')} server counts synthetic prompts only: give ${n('inputTokens')} (datasets and --prompts files later)`);
  const other = (['prefixTokens', 'turns', 'trace', 'embeddingsBatch'] as const).find((k) => o[k] !== undefined);
  if (other !== undefined) throw loadUsage(names, `${n('tokenizer')} server is not yet supported with ${n(other)}: only plain ${n('inputTokens')} prompts`);
  return t;
}

/** What an embeddings request cannot carry: it generates nothing and answers whole, once. */
const EMBEDDINGS_EXCLUSIVE = ['outputTokens', 'maxTokensField', 'maxTokens', 'turns', 'thinkTime', 'trace', 'tools', 'toolShare', 'prefixTokens', 'prefixGroups'] as const;

/** `embeddingsBatch` (`--embeddings-batch N`): POST /v1/embeddings with N inputs per request; `embeddingsFormat` its encoding_format. */
function embeddingsFromOptions(o: WorkloadOptions, names: LoadNames): WorkloadSpec['embeddings'] {
  const n = names.name;
  if (o.embeddingsBatch === undefined) {
    if (o.embeddingsFormat !== undefined) throw loadUsage(names, `${n('embeddingsFormat')} needs ${n('embeddingsBatch')} (the embeddings workload)`);
    return undefined;
  }
  for (const f of EMBEDDINGS_EXCLUSIVE) if (o[f] !== undefined) throw loadUsage(names, `${n(f)} cannot be combined with ${n('embeddingsBatch')}: an embeddings request generates no tokens and is answered whole (its inputs come from ${n('inputTokens')}, ${n('dataset')} or ${n('prompts')})`);
  const batch = checkNumber(names, 'embeddingsBatch', o.embeddingsBatch);
  const format = o.embeddingsFormat === undefined ? undefined : checkChoice(names, 'embeddingsFormat', o.embeddingsFormat);
  if (o.extraBody !== undefined) {
    const body = parseExtraBody(checkText(names, 'extraBody', o.extraBody), names);
    for (const key of ['input', 'encoding_format']) if (key in body) throw loadUsage(names, `${n('extraBody')} cannot set "${key}": iari sets it (use ${key === 'input' ? `${n('inputTokens')}, ${n('dataset')} or ${n('prompts')}` : n('embeddingsFormat')})`);
  }
  return { batch, ...(format === undefined ? {} : { encodingFormat: format }) };
}

function checkField(value: unknown, names: LoadNames): MaxTokensField {
  return checkChoice(names, 'maxTokensField', value ?? 'max_tokens');
}

const TRACE_EXCLUSIVE = ['inputTokens', 'outputTokens', 'dataset', 'datasetSize', 'prefixTokens', 'prefixGroups', 'turns', 'thinkTime', 'prompts', 'maxTokens'] as const;

function traceFromOptions(o: WorkloadOptions, names: LoadNames): WorkloadPlan['trace'] {
  const n = names.name;
  if (o.trace === undefined) {
    for (const f of ['traceFormat', 'traceSpeed', 'traceWindow'] as const) if (o[f] !== undefined) throw loadUsage(names, `${n(f)} needs ${n('trace')}`);
    return undefined;
  }
  for (const f of TRACE_EXCLUSIVE) if (o[f] !== undefined) throw loadUsage(names, `${n(f)} cannot be combined with ${n('trace')}: the trace gives every request's lengths (and Mooncake's hash_ids its shared prefixes)`);
  const format = o.traceFormat === undefined ? undefined : checkChoice(names, 'traceFormat', o.traceFormat);
  const speed = o.traceSpeed === undefined ? 1 : checkNumber(names, 'traceSpeed', o.traceSpeed);
  checkField(o.maxTokensField, names);
  const window = o.traceWindow === undefined ? null : parseTraceWindow(checkText(names, 'traceWindow', o.traceWindow), names.who, n('traceWindow'));
  return { file: checkText(names, 'trace', o.trace), options: { speed, window, ...(format === undefined ? {} : { format }) } };
}

function prefixFromOptions(tokens: number | undefined, groups: number | undefined, names: LoadNames): PrefixSpec | undefined {
  if (tokens === undefined) {
    if (groups !== undefined) throw loadUsage(names, `${names.name('prefixGroups')} needs ${names.name('prefixTokens')} (the length of each shared prefix)`);
    return undefined;
  }
  return { tokens: checkNumber(names, 'prefixTokens', tokens), groups: groups === undefined ? 1 : checkNumber(names, 'prefixGroups', groups) };
}

/** Reads the dataset, if any, into the workload (before any traffic; a bad file exits 2). */
export async function resolveWorkload(plan: WorkloadPlan, seed: number, names: LoadNames = RUN_LOAD_NAMES): Promise<WorkloadSpec | undefined> {
  const trace = plan.trace;
  if (plan.spec !== undefined && trace !== undefined) return { ...plan.spec, trace: await renamedAsync(names, 'trace', '--trace', () => readTrace(trace.file, trace.options)) };
  if (plan.spec === undefined || plan.dataset === null) return plan.spec;
  const dataset = plan.dataset;
  const output = plan.spec.output;
  const { items, info } = await renamedAsync(names, 'dataset', '--dataset', () => readDataset(dataset.file, { size: dataset.size, seed, outputOverride: output !== null }));
  return { ...plan.spec, input: { kind: 'dataset', items, info } };
}

/** `tools` (`--tools builtin|FILE`: a JSON array of {"type":"function","function":{name, parameters}}) and `toolShare` (`--tool-share P`), typed. */
export function toolsFromOptions(tools: string | undefined, share: number | undefined, names: LoadNames = RUN_LOAD_NAMES): ToolsSpec | undefined {
  if (tools === undefined) {
    if (share !== undefined) throw loadUsage(names, `${names.name('toolShare')} needs ${names.name('tools')}`);
    return undefined;
  }
  const p = share === undefined ? 1 : checkNumber(names, 'toolShare', share);
  if (tools === 'builtin') return { source: 'builtin', tools: BUILTIN_TOOLS, share: p };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(tools, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `${names.who}: ${names.name('tools')} ${tools}: ${code ?? `not JSON (${(error as Error).message})`}`);
  }
  const ok = Array.isArray(parsed) && parsed.length > 0 && parsed.every((t) => typeof t === 'object' && t !== null && (t as ToolDef).type === 'function' && typeof (t as ToolDef).function?.name === 'string');
  if (!ok) throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `${names.who}: ${names.name('tools')} ${tools}: must be a non-empty JSON array of {"type":"function","function":{"name":...,"parameters":{...}}}`);
  const defs = parsed as ToolDef[];
  renamed(names, 'tools', '--tools', () => judge(defs, tools));
  return { source: tools, tools: defs, share: p };
}
