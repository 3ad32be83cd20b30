// The workload kinds a scenario can name, behind one interface: each says which options it stands
// for, how its part of a scenario file looks (JSON Schema) and how to read it back from options.
// A new workload (an embeddings one, say) lands here as one more entry plus its options; the
// validator (workload-options.ts) and the generators (workloads/) stay as they are.
import { choiceSchema, NUMBER_RULES } from './load-option-names.ts';

type Schema = Record<string, unknown>;

export interface WorkloadKind<P extends { kind: string }> {
  /** One line for --help, docs/load.md and the schema's description. */
  summary: string;
  /** The part's own fields (besides `kind`), as JSON Schema properties; `required` lists the mandatory ones. */
  properties: Record<Exclude<keyof P, 'kind'>, Schema>;
  required: readonly Exclude<keyof P, 'kind'>[];
  /** The part's values when it leaves them out (its fields and their options are the flag table's `workload <kind>.<field>` rows, scenario-fields.ts). */
  defaults?: Partial<Omit<P, 'kind'>>;
}

const text = (description: string): Schema => ({ type: 'string', minLength: 1, description });
const num = (description: string): Schema => ({ type: 'number', description });

export type PromptsPart = { kind: 'prompts'; file?: string };
export type SyntheticPart = { kind: 'synthetic'; inputTokens: string; tokenizer?: 'o200k' | 'server' };
export type DatasetPart = { kind: 'dataset'; file: string; size?: number };
export type ConversationsPart = { kind: 'conversations'; turns: string; thinkTime?: string; chain?: 'resend' | 'previous-response-id' };
export type PrefixesPart = { kind: 'prefixes'; tokens: number; groups?: number };
export type ToolsPart = { kind: 'tools'; tools: string; share?: number };
export type TracePart = { kind: 'trace'; file: string; format?: 'mooncake' | 'burstgpt' };

export type EmbeddingsPart = { kind: 'embeddings'; batch?: number; encodingFormat?: 'float' | 'base64' };

export type WorkloadPart = PromptsPart | SyntheticPart | DatasetPart | ConversationsPart | PrefixesPart | ToolsPart | TracePart | EmbeddingsPart;

type Kinds = { [K in WorkloadPart['kind']]: WorkloadKind<Extract<WorkloadPart, { kind: K }>> };

export const WORKLOAD_KINDS: Kinds = {
  prompts: {
    summary: 'chat prompts: the built-in mix, or a JSONL file of {"messages":[...]} or {"prompt":"..."}',
    properties: { file: text('JSONL prompts file (absent: the built-in mix)') },
    required: [],
  },
  synthetic: {
    summary: 'synthetic prompts of MEAN[,STDEV] tokens (exact o200k counts, or counted by the server\'s /tokenize)',
    properties: { inputTokens: text('MEAN[,STDEV] tokens, e.g. "512,64"'), tokenizer: choiceSchema('tokenizer', 'who counts the tokens: o200k (default) or the server\'s /tokenize (llama.cpp)') },
    required: ['inputTokens'],
  },
  dataset: {
    summary: 'a ShareGPT or iari JSONL dataset, `size` conversations sampled with the seed',
    properties: { file: text('ShareGPT JSON or iari JSONL file'), size: { type: 'integer', description: 'conversations sampled (default 1000)' } },
    required: ['file'],
  },
  conversations: {
    summary: 'multi-turn conversations of N[,SD] turns carrying their history, thinkTime between turns',
    properties: { turns: text('N[,SD] turns, e.g. "4" or "4,1"'), thinkTime: text('pause between turns, e.g. "2s"'), chain: { enum: ['resend', 'previous-response-id'], description: 'later turns resend the whole history (default) or continue the kept answer by previous_response_id (--api responses)' } },
    required: ['turns'],
  },
  prefixes: {
    summary: 'every request starts with one of `groups` shared prefixes of `tokens` tokens (prefix-cache hit rate)',
    properties: { tokens: { type: 'integer', description: 'tokens of each shared prefix' }, groups: { type: 'integer', description: 'distinct prefixes (default 1)' } },
    required: ['tokens'],
  },
  tools: {
    summary: 'requests declare tools (builtin or a JSON file) and every call is judged; `share` of them',
    properties: { tools: text('"builtin" or a JSON file of tool definitions'), share: num('share of requests that declare the tools (default 1)') },
    required: ['tools'],
  },
  trace: {
    summary: 'a Mooncake JSONL or BurstGPT CSV trace: its lengths and shared blocks (its arrivals: executor kind trace)',
    properties: { file: text('trace file'), format: choiceSchema('traceFormat', 'default: from the first line') },
    required: ['file'],
  },
  embeddings: {
    summary: 'POST /v1/embeddings of `batch` inputs per request (texts from synthetic, dataset or prompts): inputs/s, tokens/s, batch size',
    properties: { batch: { type: 'integer', minimum: NUMBER_RULES.embeddingsBatch.min, maximum: NUMBER_RULES.embeddingsBatch.max, description: 'inputs per request (default 1)' }, encodingFormat: choiceSchema('embeddingsFormat', 'encoding_format sent (default: none, the server\'s float)') },
    required: [],
    defaults: { batch: 1 },
  },
};
