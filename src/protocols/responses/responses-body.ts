import type { ResponsesFinding, ResponsesRuleCode } from './responses-rules.ts';

/**
 * The Response object (compat: OpenAI API reference, "The response object"): what a 200 answer to
 * POST /v1/responses is, what GET /v1/responses/{id} returns, and what the terminal event of a
 * stream carries. openai-node reads it as `Response`: `output` (it walks every message's
 * `content` for `output_text`, ResponsesParser.addOutputText), `status`, `usage`.
 */

export type Json = Record<string, unknown>;
export const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

export function show(v: unknown): string {
  const s = typeof v === 'string' ? JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v) : Array.isArray(v) ? `an array of ${v.length}` : (JSON.stringify(v) ?? String(v));
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** Compat, ResponseStatus. */
export const RESPONSE_STATUSES: ReadonlySet<string> = new Set(['completed', 'incomplete', 'failed', 'in_progress', 'queued', 'cancelled']);

export interface ResponsesUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** usage.input_tokens_details.cached_tokens, when given. */
  cachedTokens?: number;
}

export interface FunctionCallFact {
  /** The item's id (fc_...), when given. */
  id: string | undefined;
  callId: string;
  name: string;
  arguments: string;
  /** The item as it came, for a round trip (clients give it back verbatim). */
  item: Json;
}

/** What a Response holds, read once: the facts the checks and load use. */
export interface ResponseFacts {
  id: string | undefined;
  status: string | undefined;
  incompleteReason: string | undefined;
  /** The output_text of every message item, joined (what openai-node gives as `output_text`). */
  text: string;
  functionCalls: FunctionCallFact[];
  /** How many output items, of which kinds. */
  itemTypes: string[];
  usage: ResponsesUsage | undefined;
  metadata: unknown;
}

export type Add = (rule: ResponsesRuleCode, message: string, pointer: string, expected?: unknown, received?: unknown) => void;

export function adder(findings: ResponsesFinding[]): Add {
  return (rule, message, pointer, expected, received) => {
    findings.push({ rule, message, pointer, ...(expected === undefined ? {} : { expected }), ...(received === undefined ? {} : { received }) });
  };
}

/**
 * Checks one output item. `whole`: a done item (or one of a finished response), whose message
 * content holds its parts; an item just added may still have `content: []`.
 */
export function checkOutputItem(item: unknown, ptr: string, add: Add): void {
  if (!isRecord(item) || typeof item['type'] !== 'string') {
    add('item-invalid', `${ptr} is ${show(item)}, not an output item with a type`, ptr, 'an object with a string type', item);
    return;
  }
  if (item['type'] === 'message') {
    if (typeof item['id'] !== 'string' || item['id'] === '') add('item-invalid', `${ptr}.id is ${'id' in item ? show(item['id']) : 'absent'}`, `${ptr}/id`, 'a non-empty string', item['id'] ?? 'absent');
    if (item['role'] !== 'assistant') add('item-invalid', `${ptr}.role is ${'role' in item ? show(item['role']) : 'absent'}`, `${ptr}/role`, 'assistant', item['role'] ?? 'absent');
    const content = item['content'];
    // openai-node addOutputText: `for (const content of output.content)`: a string or an absent content throws or misreads.
    if (!Array.isArray(content)) {
      add('item-invalid', `${ptr}.content is ${'content' in item ? show(content) : 'absent'}, not an array of content parts`, `${ptr}/content`, 'an array of content parts', content ?? 'absent');
      return;
    }
    content.forEach((part, k) => checkPart(part, `${ptr}/content/${k}`, add));
  } else if (item['type'] === 'function_call') {
    for (const key of ['call_id', 'name'] as const) {
      if (typeof item[key] !== 'string' || item[key] === '') add('item-invalid', `${ptr}.${key} is ${key in item ? show(item[key]) : 'absent'}`, `${ptr}/${key}`, 'a non-empty string', item[key] ?? 'absent');
    }
    if (typeof item['arguments'] !== 'string') add('item-invalid', `${ptr}.arguments is ${'arguments' in item ? show(item['arguments']) : 'absent'}, not a string`, `${ptr}/arguments`, 'a JSON text', item['arguments'] ?? 'absent');
  }
}

export function checkPart(part: unknown, ptr: string, add: Add): void {
  if (!isRecord(part) || typeof part['type'] !== 'string') {
    add('item-invalid', `${ptr} is ${show(part)}, not a content part with a type`, ptr, 'an object with a string type', part);
    return;
  }
  if (part['type'] === 'output_text' && typeof part['text'] !== 'string') add('item-invalid', `${ptr}.text is ${'text' in part ? show(part['text']) : 'absent'}, not a string`, `${ptr}/text`, 'a string', part['text'] ?? 'absent');
}

/** The output_text of one message item's parts, joined. */
export function messageText(item: unknown): string {
  if (!isRecord(item) || !Array.isArray(item['content'])) return '';
  return (item['content'] as unknown[]).map((p) => (isRecord(p) && p['type'] === 'output_text' && typeof p['text'] === 'string' ? p['text'] : '')).join('');
}

export function usageOf(raw: unknown): ResponsesUsage | undefined {
  if (!isRecord(raw)) return undefined;
  const i = raw['input_tokens'];
  const o = raw['output_tokens'];
  const t = raw['total_tokens'];
  if (!isCount(i) || !isCount(o) || !isCount(t)) return undefined;
  const details = raw['input_tokens_details'];
  const cached = isRecord(details) ? details['cached_tokens'] : undefined;
  return { inputTokens: i, outputTokens: o, totalTokens: t, ...(isCount(cached) ? { cachedTokens: cached } : {}) };
}

/** Checks usage: rules usage-missing and usage-counts, or the rule the caller names (a terminal event's). */
export function checkUsage(raw: unknown, add: Add, missing: ResponsesRuleCode = 'usage-missing', counts: ResponsesRuleCode = 'usage-counts'): ResponsesUsage | undefined {
  if (!isRecord(raw)) {
    add(missing, `usage is ${raw === undefined ? 'absent' : show(raw)}`, '/usage', '{input_tokens, output_tokens, total_tokens}', raw ?? 'absent');
    return undefined;
  }
  const u = usageOf(raw);
  if (u === undefined) {
    add(counts, `usage counts are not integers >= 0: input_tokens ${show(raw['input_tokens'])}, output_tokens ${show(raw['output_tokens'])}, total_tokens ${show(raw['total_tokens'])}`, '/usage', 'integers >= 0', raw);
    return undefined;
  }
  if (u.totalTokens !== u.inputTokens + u.outputTokens) add(counts, `total_tokens ${u.totalTokens} != input_tokens ${u.inputTokens} + output_tokens ${u.outputTokens}`, '/usage/total_tokens', u.inputTokens + u.outputTokens, u.totalTokens);
  return u;
}

/** The facts of a Response object, whatever its shape (never throws). */
export function responseFacts(body: unknown): ResponseFacts {
  const b = isRecord(body) ? body : {};
  const output = Array.isArray(b['output']) ? (b['output'] as unknown[]) : [];
  const functionCalls: FunctionCallFact[] = [];
  for (const item of output) {
    if (!isRecord(item) || item['type'] !== 'function_call') continue;
    const { id, call_id: callId, name, arguments: args } = item;
    if (typeof callId === 'string' && typeof name === 'string' && typeof args === 'string') functionCalls.push({ id: typeof id === 'string' ? id : undefined, callId, name, arguments: args, item });
  }
  const details = b['incomplete_details'];
  return {
    id: typeof b['id'] === 'string' ? b['id'] : undefined,
    status: typeof b['status'] === 'string' ? b['status'] : undefined,
    incompleteReason: isRecord(details) && typeof details['reason'] === 'string' ? details['reason'] : undefined,
    text: output.filter((i) => isRecord(i) && i['type'] === 'message').map(messageText).join(''),
    functionCalls,
    itemTypes: output.map((i) => (isRecord(i) && typeof i['type'] === 'string' ? i['type'] : '?')),
    usage: usageOf(b['usage']),
    metadata: b['metadata'],
  };
}

/** Checks the members every Response carries (a body, a retrieved response, a terminal event's). */
export function checkResponseObject(body: unknown, add: Add): void {
  if (!isRecord(body)) {
    add('body-invalid', `the response is ${show(body)}, not a JSON object`, '', 'an object', body);
    return;
  }
  if (typeof body['id'] !== 'string' || body['id'] === '') add('id-invalid', `id is ${'id' in body ? show(body['id']) : 'absent'}`, '/id', 'a non-empty string', body['id'] ?? 'absent');
  if (body['object'] !== 'response') add('object-wrong', `object is ${'object' in body ? show(body['object']) : 'absent'}`, '/object', 'response', body['object'] ?? 'absent');
  const created = body['created_at'];
  if (!(typeof created === 'number' && Number.isInteger(created) && created > 0 && created < 1e10)) add('created-at-invalid', `created_at is ${'created_at' in body ? show(created) : 'absent'}`, '/created_at', 'integer Unix seconds', created ?? 'absent');
  if (typeof body['model'] !== 'string' || body['model'] === '') add('model-invalid', `model is ${'model' in body ? show(body['model']) : 'absent'}`, '/model', 'a non-empty string', body['model'] ?? 'absent');
  const status = body['status'];
  if (typeof status !== 'string' || !RESPONSE_STATUSES.has(status)) add('status-invalid', `status is ${'status' in body ? show(status) : 'absent'}`, '/status', [...RESPONSE_STATUSES].join('|'), status ?? 'absent');
  if (status === 'incomplete') {
    const details = body['incomplete_details'];
    if (!isRecord(details) || typeof details['reason'] !== 'string') add('incomplete-details-missing', `status is incomplete and incomplete_details is ${show(details ?? 'absent')}`, '/incomplete_details', '{reason: "max_output_tokens" | "content_filter"}', details ?? 'absent');
  }
  const output = body['output'];
  if (!Array.isArray(output)) {
    add('output-invalid', `output is ${'output' in body ? show(output) : 'absent'}, not an array`, '/output', 'an array of output items', output ?? 'absent');
    return;
  }
  output.forEach((item, i) => checkOutputItem(item, `/output/${i}`, add));
}

/** What the request asked that the answer must show. */
export interface SentResponse {
  /** max_output_tokens of the request. */
  maxOutputTokens?: number;
  /** metadata of the request: the response carries it back. */
  metadata?: Record<string, string>;
}

export interface ResponseCheckResult {
  findings: ResponsesFinding[];
  facts: ResponseFacts;
}

/** Checks a 200 answer to POST /v1/responses (not streamed). Never throws, whatever the body. */
export function checkResponseBody(body: unknown, sent: SentResponse = {}): ResponseCheckResult {
  const findings: ResponsesFinding[] = [];
  const add = adder(findings);
  checkResponseObject(body, add);
  const facts = responseFacts(body);
  if (isRecord(body) && body['status'] !== 'failed') checkUsage(body['usage'], add);
  judgeAgainstRequest(facts, sent, add);
  return { findings, facts };
}

/** What the answer must show of the request: the bound kept and said, the metadata carried back. */
export function judgeAgainstRequest(facts: ResponseFacts, sent: SentResponse, add: Add): void {
  const bound = sent.maxOutputTokens;
  const out = facts.usage?.outputTokens;
  if (bound !== undefined && out !== undefined) {
    if (out > bound) add('output-over-bound', `usage.output_tokens ${out} > max_output_tokens ${bound}`, '/usage/output_tokens', `<= ${bound}`, out);
    // Compat: a response cut at max_output_tokens is "incomplete", incomplete_details.reason "max_output_tokens".
    else if (out === bound && facts.status === 'completed') add('cut-as-completed', `usage.output_tokens reached max_output_tokens ${bound} and status is completed`, '/status', 'incomplete', 'completed');
  }
  if (sent.metadata !== undefined) {
    const got = facts.metadata;
    const same = isRecord(got) && Object.keys(sent.metadata).length === Object.keys(got).length && Object.entries(sent.metadata).every(([k, v]) => got[k] === v);
    if (!same) add('metadata-not-echoed', `metadata is ${show(got ?? 'absent')}, not the request's ${show(sent.metadata)}`, '/metadata', sent.metadata, got ?? 'absent');
  }
}

/** A retrieved response against the one created (or streamed): same id, status, text and calls. */
export function compareStored(created: ResponseFacts, retrieved: unknown): ResponsesFinding[] {
  const findings: ResponsesFinding[] = [];
  const add = adder(findings);
  const r = responseFacts(retrieved);
  if (r.id !== created.id) add('stored-differs', `the retrieved response has id ${show(r.id ?? 'absent')}, not ${show(created.id)}`, '/id', created.id, r.id ?? 'absent');
  if (r.status !== created.status) add('stored-differs', `the retrieved response has status ${show(r.status ?? 'absent')}, the created one ${show(created.status)}`, '/status', created.status, r.status ?? 'absent');
  if (r.text !== created.text) add('stored-differs', `the retrieved output text is ${show(r.text)}, the created one ${show(created.text)}`, '/output', created.text, r.text);
  const calls = (f: ResponseFacts): string => JSON.stringify(f.functionCalls.map((c) => [c.callId, c.name, c.arguments]));
  if (calls(r) !== calls(created)) add('stored-differs', `the retrieved function calls ${calls(r)} differ from the created ones ${calls(created)}`, '/output', calls(created), calls(r));
  return findings;
}
