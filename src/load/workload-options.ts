import { readFileSync } from 'node:fs';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { readDataset } from './dataset.ts';
import { parseTraceWindow, readTrace, type TraceOptions } from './trace.ts';
import { toolsFromFlags } from './tool-calls.ts';
import { durationOption } from '../duration.ts';
import { RESERVED_BODY_KEYS, type MaxTokensField, type PrefixSpec, type TokenLength, type WorkloadSpec } from './workload.ts';

/** `iari load` flags that shape what each request asks for (token lengths, datasets, vendor fields). */
export const workloadFlagSpec = {
  'input-tokens': { type: 'string' },
  'output-tokens': { type: 'string' },
  'extra-body': { type: 'string' },
  dataset: { type: 'string' },
  'dataset-size': { type: 'string' },
  'max-tokens-field': { type: 'string' },
  'prefix-tokens': { type: 'string' },
  'prefix-groups': { type: 'string' },
  turns: { type: 'string' },
  'think-time': { type: 'string' },
  trace: { type: 'string' },
  'trace-format': { type: 'string' },
  'trace-speed': { type: 'string' },
  'trace-window': { type: 'string' },
  tools: { type: 'string' },
  'tool-share': { type: 'string' },
} as const;

export const workloadHelp = `Workload (token lengths; prompts counted with the o200k tokenizer):
  --input-tokens MEAN[,STDEV]   synthetic prompts of MEAN tokens (normal, STDEV default 0),
                         different for every request, reproducible with --seed
  --output-tokens MEAN[,STDEV]  output length per request, sent as max_tokens; servers stop
                         early at their end-of-sequence token unless asked not to, e.g.
                         --extra-body '{"ignore_eos":true}' (vLLM, llama.cpp)
  --max-tokens-field max_tokens|max_completion_tokens|both   where the length goes (default max_tokens)
  --extra-body JSON      object merged into every request body (or @FILE), e.g.
                         '{"ignore_eos":true,"min_tokens":128}'; written to load.json as given
  --dataset FILE         ShareGPT conversations (JSON array or JSONL, as vLLM bench reads them:
                         first turn = prompt, second = reference answer, its length = output
                         length) or iari JSONL ({"prompt"|"messages", "max_tokens"?} per line)
  --dataset-size N       conversations kept from the dataset, a seeded sample (default 1000)
  --prefix-tokens N      every request starts with a shared system prompt of N tokens (the same
                         text across requests, so a prefix cache can serve it); the report
                         reads usage.prompt_tokens_details.cached_tokens: hit rate, TTFT hit/miss
  --prefix-groups G      G different shared prefixes, one drawn per request (default 1)
  --turns N[,SD]         multi-turn conversations of N turns (normal, SD default 0): each turn
                         sends the whole history with the server's own answers; with --dataset,
                         ShareGPT conversations (or iari lines with several user messages) replay
                         their own turns, at most N+4SD. Closed loop: a conversation holds its
                         slot; open loop (--rate): the arrivals are conversations. The report
                         gives TTFT and prompt tokens by turn
  --think-time D         pause between an answer and the next turn, e.g. 2s (default 0)
  --tools builtin|FILE   requests declare tools (builtin: get_weather, search_flights; FILE: a JSON
                         array of {"type":"function","function":{name, parameters}}); every tool
                         call is judged: arguments not JSON, unknown function, schema mismatch
                         (rates by kind; SLO tool_calls.invalid_rate<0.01)
  --tool-share P         share of requests that declare the tools, seeded (default 1)
Trace replay (open loop; arrivals and lengths from the trace, latency from its intended times):
  --trace FILE           Mooncake JSONL ({"timestamp":ms,"input_length","output_length","hash_ids"}:
                         each hash id one shared 512-token block of the prompt, so a prefix cache
                         sees the trace's sharing) or BurstGPT CSV (Timestamp in s, Request tokens,
                         Response tokens; rows with 0 response tokens skipped); a bad line exits 2
                         naming the file and line, before any traffic. The run lasts the trace
                         (or --duration / --requests, whichever ends first)
  --trace-format mooncake|burstgpt   default: from the first line
  --trace-speed X        replay X times as fast (default 1; 0.5 = half speed)
  --trace-window START-END   replay only this part of the trace, in trace time, e.g. 60s-120s,
                         10m- (to the end); default: from its first timestamp to its end
`;

const usage = (message: string): HarnessError => new HarnessError(HarnessErrorCode.USAGE, `iari load: ${message}`);

/** `MEAN[,STDEV]` in tokens. */
export function parseTokenLength(flag: string, value: string): TokenLength {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:,\s*(\d+(?:\.\d+)?)\s*)?$/.exec(value);
  if (m === null) throw usage(`--${flag} must be MEAN or MEAN,STDEV in tokens, e.g. 512 or 512,64; got "${value}"`);
  const mean = Number(m[1]);
  const stdev = m[2] === undefined ? 0 : Number(m[2]);
  if (mean < 1 || mean > 1_000_000) throw usage(`--${flag}: the mean must be from 1 to 1000000 tokens, got ${mean}`);
  if (stdev > mean * 10) throw usage(`--${flag}: the standard deviation ${stdev} is more than ten times the mean`);
  return { mean, stdev };
}

/** `--extra-body JSON` or `@FILE`: a JSON object that does not set what iari sets itself. */
export function parseExtraBody(value: string): Record<string, unknown> {
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = readFileSync(value.slice(1), 'utf8');
    } catch (error) {
      throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `iari load: cannot read --extra-body ${value}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw usage(`--extra-body is not JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw usage('--extra-body must be a JSON object, e.g. \'{"ignore_eos":true}\'');
  const body = parsed as Record<string, unknown>;
  for (const key of RESERVED_BODY_KEYS) {
    if (key in body) {
      const use = key === 'max_tokens' || key === 'max_completion_tokens' ? '--output-tokens, --max-tokens or --max-tokens-field' : key === 'model' ? '--model' : key === 'messages' ? '--prompts, --dataset or --input-tokens' : '--stream / --no-stream';
      throw usage(`--extra-body cannot set "${key}": iari sets it (use ${use})`);
    }
  }
  return body;
}

type Values = { [K in keyof typeof workloadFlagSpec]?: string | undefined } & { prompts?: string | undefined; 'max-tokens'?: string | undefined };

export interface WorkloadPlan {
  /** The workload without its dataset conversations (read by `resolveWorkload`); undefined: none asked. */
  spec: WorkloadSpec | undefined;
  dataset: { file: string; size: number } | null;
  /** --trace: read by `resolveWorkload` (before any traffic). */
  trace?: { file: string; options: TraceOptions };
}

/** Validates the workload flags before any traffic (exit 2 on a bad or contradictory one). */
export function workloadFromFlags(v: Values): WorkloadPlan {
  const given = Object.keys(workloadFlagSpec).some((k) => v[k as keyof typeof workloadFlagSpec] !== undefined);
  if (!given) return { spec: undefined, dataset: null };
  const tools = toolsFromFlags(v.tools, v['tool-share']);
  const trace = traceFromFlags(v);
  if (trace !== undefined) {
    return { spec: { ...(tools === undefined ? {} : { tools }), input: { kind: 'prompts' }, output: null, maxTokensField: (v['max-tokens-field'] ?? 'max_tokens') as MaxTokensField, extraBody: v['extra-body'] === undefined ? null : parseExtraBody(v['extra-body']) }, dataset: null, trace };
  }
  if (v['input-tokens'] !== undefined && v.prompts !== undefined) throw usage('give --input-tokens (synthetic prompts) or --prompts, not both');
  if (v['input-tokens'] !== undefined && v.dataset !== undefined) throw usage('give --input-tokens (synthetic prompts) or --dataset, not both');
  if (v.dataset !== undefined && v.prompts !== undefined) throw usage('give --dataset or --prompts, not both (--dataset reads the --prompts format too)');
  if (v['output-tokens'] !== undefined && v['max-tokens'] !== undefined) throw usage('give --output-tokens (a length per request) or --max-tokens (one cap), not both');
  if (v['dataset-size'] !== undefined && v.dataset === undefined) throw usage('--dataset-size needs --dataset');
  const field = v['max-tokens-field'] ?? 'max_tokens';
  if (field !== 'max_tokens' && field !== 'max_completion_tokens' && field !== 'both') throw usage(`--max-tokens-field must be max_tokens, max_completion_tokens or both, got "${field}"`);
  let size = 1000;
  if (v['dataset-size'] !== undefined) {
    if (!/^\d+$/.test(v['dataset-size']) || Number(v['dataset-size']) < 1 || Number(v['dataset-size']) > 100_000) throw usage(`--dataset-size must be an integer from 1 to 100000, got "${v['dataset-size']}"`);
    size = Number(v['dataset-size']);
  }
  const prefix = prefixFromFlags(v['prefix-tokens'], v['prefix-groups']);
  if (v['think-time'] !== undefined && v.turns === undefined) throw usage('--think-time needs --turns (it is the pause between turns of a conversation)');
  const conversation = v.turns === undefined ? undefined : { turns: parseTokenLength('turns', v.turns), thinkTimeMs: durationOption('iari load', 'think-time', v['think-time'], 0, 600) ?? 0 };
  if (conversation !== undefined && conversation.turns.mean > 1000) throw usage(`--turns: at most 1000 turns per conversation, got ${conversation.turns.mean}`);
  const spec: WorkloadSpec = {
    ...(tools === undefined ? {} : { tools }),
    ...(prefix === undefined ? {} : { prefix }),
    ...(conversation === undefined ? {} : { conversation }),
    input: v['input-tokens'] !== undefined ? { kind: 'synthetic', length: parseTokenLength('input-tokens', v['input-tokens']) } : { kind: 'prompts' },
    output: v['output-tokens'] === undefined ? null : parseTokenLength('output-tokens', v['output-tokens']),
    maxTokensField: field as MaxTokensField,
    extraBody: v['extra-body'] === undefined ? null : parseExtraBody(v['extra-body']),
  };
  return { spec, dataset: v.dataset === undefined ? null : { file: v.dataset, size } };
}

const TRACE_EXCLUSIVE = ['input-tokens', 'output-tokens', 'dataset', 'dataset-size', 'prefix-tokens', 'prefix-groups', 'turns', 'think-time', 'prompts', 'max-tokens'] as const;

function traceFromFlags(v: Values): WorkloadPlan['trace'] {
  if (v.trace === undefined) {
    for (const f of ['trace-format', 'trace-speed', 'trace-window'] as const) if (v[f] !== undefined) throw usage(`--${f} needs --trace`);
    return undefined;
  }
  for (const f of TRACE_EXCLUSIVE) if (v[f] !== undefined) throw usage(`--${f} cannot be combined with --trace: the trace gives every request's lengths (and Mooncake's hash_ids its shared prefixes)`);
  const format = v['trace-format'];
  if (format !== undefined && format !== 'mooncake' && format !== 'burstgpt') throw usage(`--trace-format must be mooncake or burstgpt, got "${format}"`);
  let speed = 1;
  if (v['trace-speed'] !== undefined) {
    speed = Number(v['trace-speed']);
    if (!/^\d+(\.\d+)?$/.test(v['trace-speed'].trim()) || speed < 0.001 || speed > 10_000) throw usage(`--trace-speed must be a number from 0.001 to 10000, got "${v['trace-speed']}"`);
  }
  const field = v['max-tokens-field'] ?? 'max_tokens';
  if (field !== 'max_tokens' && field !== 'max_completion_tokens' && field !== 'both') throw usage(`--max-tokens-field must be max_tokens, max_completion_tokens or both, got "${field}"`);
  const window = v['trace-window'] === undefined ? null : parseTraceWindow(v['trace-window']);
  return { file: v.trace, options: { speed, window, ...(format === undefined ? {} : { format }) } };
}

function intFlag(flag: string, value: string, min: number, max: number): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < min || Number(value) > max) throw usage(`--${flag} must be an integer from ${min} to ${max}, got "${value}"`);
  return Number(value);
}

function prefixFromFlags(tokens: string | undefined, groups: string | undefined): PrefixSpec | undefined {
  if (tokens === undefined) {
    if (groups !== undefined) throw usage('--prefix-groups needs --prefix-tokens (the length of each shared prefix)');
    return undefined;
  }
  return { tokens: intFlag('prefix-tokens', tokens, 1, 200_000), groups: groups === undefined ? 1 : intFlag('prefix-groups', groups, 1, 10_000) };
}

/** Reads the dataset, if any, into the workload (before any traffic; a bad file exits 2). */
export async function resolveWorkload(plan: WorkloadPlan, seed: number): Promise<WorkloadSpec | undefined> {
  if (plan.spec !== undefined && plan.trace !== undefined) return { ...plan.spec, trace: await readTrace(plan.trace.file, plan.trace.options) };
  if (plan.spec === undefined || plan.dataset === null) return plan.spec;
  const { items, info } = await readDataset(plan.dataset.file, { size: plan.dataset.size, seed, outputOverride: plan.spec.output !== null });
  return { ...plan.spec, input: { kind: 'dataset', items, info } };
}
