/**
 * The request side of the Responses API (compat: OpenAI API reference, "Responses": create
 * `POST /v1/responses`, retrieve `GET /v1/responses/{response_id}`, delete `DELETE
 * /v1/responses/{response_id}`): its routes, its bodies, and the request validation a server
 * applies (the mock's, with OpenAI's 400s naming `param`). One module for the checks, the load
 * engines and the mock.
 */

/** The route under a base URL that ends in /v1, and the whole path. */
export const RESPONSES_ROUTE = '/responses';
export const RESPONSES_PATH = `/v1${RESPONSES_ROUTE}`;

/** The path of one stored response (retrieve, delete). */
export function responsePath(id: string): string {
  return `${RESPONSES_PATH}/${encodeURIComponent(id)}`;
}

/** The id in a path under RESPONSES_PATH, or undefined when the path is not one response's. */
export function responseIdOfPath(path: string): string | undefined {
  if (!path.startsWith(`${RESPONSES_PATH}/`)) return undefined;
  const rest = path.slice(RESPONSES_PATH.length + 1);
  if (rest === '' || rest.includes('/')) return undefined;
  try {
    return decodeURIComponent(rest);
  } catch {
    return undefined;
  }
}

/** Compat, FunctionTool: the flat form `{type: "function", name, description, parameters, strict}` (not chat's nested `function`). */
export interface FunctionTool {
  type: 'function';
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
  strict: boolean;
}

export type ToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; name: string };

/** An input item as clients send it: a message, or a function call and its output (replayed verbatim by the Agents SDK and Codex). */
export type InputItem = Record<string, unknown>;

export interface ResponsesRequest {
  model: string;
  input: string | InputItem[];
  instructions?: string;
  max_output_tokens?: number;
  tools?: FunctionTool[];
  tool_choice?: ToolChoice;
  store?: boolean;
  previous_response_id?: string;
  metadata?: Record<string, string>;
  stream?: boolean;
  temperature?: number;
}

export type ResponsesOptions = Omit<ResponsesRequest, 'model' | 'input'>;

/** A request body; members left out are left out of the JSON. */
export function responsesBody(model: string, input: string | InputItem[], options: ResponsesOptions = {}): ResponsesRequest {
  const body: ResponsesRequest = { model, input };
  for (const [k, v] of Object.entries(options)) if (v !== undefined) (body as unknown as Record<string, unknown>)[k] = v;
  return body;
}

export function userMessage(text: string): InputItem {
  return { type: 'message', role: 'user', content: [{ type: 'input_text', text }] };
}

export function functionTool(name: string, description: string, parameters: Record<string, unknown>): FunctionTool {
  return { type: 'function', name, description, parameters, strict: false };
}

/** Compat, FunctionCallOutput: the caller's result of a call, sent back as an input item. */
export function functionCallOutput(callId: string, output: string): InputItem {
  return { type: 'function_call_output', call_id: callId, output };
}

// ---------------------------------------------------------------------------------------------
// Validation, as a server applies it

/** One input item as the model reads it. */
export type Turn =
  | { kind: 'message'; role: 'system' | 'developer' | 'user' | 'assistant'; text: string }
  | { kind: 'function_call'; callId: string; name: string; arguments: string }
  | { kind: 'function_call_output'; callId: string; output: string };

export type ToolChoiceMode = { mode: 'none' } | { mode: 'auto' } | { mode: 'required' } | { mode: 'named'; name: string };

/** A request as a server understands it. */
export interface ValidResponsesRequest {
  model: string;
  turns: Turn[];
  instructions: string | null;
  maxOutputTokens: number | null;
  tools: { name: string; description: string | null; parameters: Record<string, unknown> }[];
  toolChoice: ToolChoiceMode;
  parallelToolCalls: boolean;
  /** Compat, `store`: "Whether to store the generated model response for later retrieval via API", default true. */
  store: boolean;
  previousResponseId: string | null;
  metadata: Record<string, string> | null;
  stream: boolean;
  temperature: number | null;
}

export type ResponsesValidation = { ok: true; request: ValidResponsesRequest } | { ok: false; param: string | null; message: string };

/** Compat, `max_output_tokens`: OpenAI refuses values below 16 ("integer below minimum value"). */
export const MIN_OUTPUT_TOKENS = 16;
/** Compat, `metadata`: "up to 16 key-value pairs ... keys ... max 64 characters ... values ... max 512 characters". */
export const METADATA_LIMITS = { pairs: 16, key: 64, value: 512 } as const;
const ROLES = new Set(['system', 'developer', 'user', 'assistant']);

class Invalid extends Error {
  constructor(
    readonly param: string | null,
    message: string,
  ) {
    super(message);
  }
}

const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function wrongType(param: string, expected: string, v: unknown): never {
  throw new Invalid(param, `Invalid type for '${param}': expected ${expected}, but got ${kindOf(v)} instead.`);
}

function stringOf(v: unknown, param: string): string {
  if (typeof v !== 'string') wrongType(param, 'a string', v);
  return v;
}

/** The text of a message's content: a string, or input_text / output_text parts (refusals and other parts carry none). */
function contentText(content: unknown, param: string): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) wrongType(param, 'a string or an array of content parts', content);
  let text = '';
  content.forEach((part, i) => {
    if (!isRecord(part)) wrongType(`${param}[${i}]`, 'an object', part);
    const type = part['type'];
    if (type === 'input_text' || type === 'output_text') text += stringOf(part['text'], `${param}[${i}].text`);
    else if (type === 'refusal' || type === 'input_image' || type === 'input_file' || type === 'input_audio') return;
    else throw new Invalid(`${param}[${i}].type`, `Invalid value: ${JSON.stringify(type)?.slice(0, 40)}. Supported values are: 'input_text', 'output_text', 'refusal', 'input_image', 'input_file' and 'input_audio'.`);
  });
  return text;
}

function turnOf(item: unknown, i: number): Turn | null {
  const param = `input[${i}]`;
  if (!isRecord(item)) wrongType(param, 'an object', item);
  // Compat, EasyInputMessage: `type` may be left out of a message.
  const type = item['type'] ?? 'message';
  switch (type) {
    case 'message': {
      const role = item['role'];
      if (typeof role !== 'string' || !ROLES.has(role)) throw new Invalid(`${param}.role`, `Invalid value: ${JSON.stringify(role)?.slice(0, 40) ?? 'undefined'}. Supported values are: 'user', 'assistant', 'system' and 'developer'.`);
      return { kind: 'message', role: role as 'user', text: contentText(item['content'], `${param}.content`) };
    }
    case 'function_call':
      return { kind: 'function_call', callId: stringOf(item['call_id'], `${param}.call_id`), name: stringOf(item['name'], `${param}.name`), arguments: stringOf(item['arguments'], `${param}.arguments`) };
    case 'function_call_output': {
      const output = item['output'];
      return { kind: 'function_call_output', callId: stringOf(item['call_id'], `${param}.call_id`), output: typeof output === 'string' ? output : contentText(output, `${param}.output`) };
    }
    case 'reasoning':
      // A reasoning item given back (the Agents SDK replays them): carried by the model that made it, read by none here.
      return null;
    default:
      throw new Invalid(`${param}.type`, `Invalid value: ${JSON.stringify(type)?.slice(0, 40)}. Supported values are: 'message', 'function_call', 'function_call_output' and 'reasoning'.`);
  }
}

function toolsOf(raw: unknown): ValidResponsesRequest['tools'] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) wrongType('tools', 'an array', raw);
  const out: ValidResponsesRequest['tools'] = [];
  raw.forEach((t, i) => {
    if (!isRecord(t)) wrongType(`tools[${i}]`, 'an object', t);
    if (typeof t['type'] !== 'string') throw new Invalid(`tools[${i}].type`, `Missing required parameter: 'tools[${i}].type'.`);
    // Built-in tool types (web_search, custom, namespace ...) are the server's to run or skip: Codex sends them (llama.cpp PR #23041 skips them).
    if (t['type'] !== 'function') return;
    // Compat: the flat form. Chat's nested {"function": {...}} has no top-level name, and OpenAI refuses it so.
    if (typeof t['name'] !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(t['name'])) throw new Invalid(`tools[${i}].name`, `Missing required parameter: 'tools[${i}].name'.`);
    const parameters = t['parameters'] ?? { type: 'object', properties: {} };
    if (!isRecord(parameters)) wrongType(`tools[${i}].parameters`, 'an object', parameters);
    const description = t['description'];
    out.push({ name: t['name'], description: typeof description === 'string' ? description : null, parameters });
  });
  return out;
}

function toolChoiceOf(raw: unknown, tools: ValidResponsesRequest['tools']): ToolChoiceMode {
  if (raw === undefined || raw === null || raw === 'auto') return { mode: 'auto' };
  if (raw === 'none' || raw === 'required') {
    if (raw === 'required' && tools.length === 0) throw new Invalid('tool_choice', "Tool choice 'required' must be specified with 'tools' parameter.");
    return { mode: raw };
  }
  if (isRecord(raw) && raw['type'] === 'function' && typeof raw['name'] === 'string') {
    const name = raw['name'];
    if (!tools.some((t) => t.name === name)) throw new Invalid('tool_choice', `Tool choice '${name.slice(0, 64)}' not found in 'tools' parameter.`);
    return { mode: 'named', name };
  }
  throw new Invalid('tool_choice', `Invalid value for 'tool_choice': send "none", "auto", "required" or {"type": "function", "name": ...}.`);
}

function metadataOf(raw: unknown): Record<string, string> | null {
  if (raw === undefined || raw === null) return null;
  if (!isRecord(raw)) wrongType('metadata', 'an object', raw);
  const entries = Object.entries(raw);
  if (entries.length > METADATA_LIMITS.pairs) throw new Invalid('metadata', `Invalid 'metadata': too many properties. Expected an object with at most ${METADATA_LIMITS.pairs} properties, but got ${entries.length} instead.`);
  for (const [k, v] of entries) {
    if (k.length > METADATA_LIMITS.key) throw new Invalid('metadata', `Invalid 'metadata': key too long (at most ${METADATA_LIMITS.key} characters).`);
    if (typeof v !== 'string') wrongType(`metadata.${k.slice(0, 64)}`, 'a string', v);
    if (v.length > METADATA_LIMITS.value) throw new Invalid(`metadata.${k}`, `Invalid 'metadata.${k}': string too long (at most ${METADATA_LIMITS.value} characters).`);
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

function optional<T>(v: unknown, param: string, expected: string, test: (x: unknown) => x is T): T | null {
  if (v === undefined || v === null) return null;
  if (!test(v)) wrongType(param, expected, v);
  return v;
}

const isBool = (x: unknown): x is boolean => typeof x === 'boolean';
const isString = (x: unknown): x is string => typeof x === 'string';
const isNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** What is wrong with a request body, naming the member as OpenAI's `error.param` does; or the request as understood. */
export function validateResponsesRequest(body: unknown): ResponsesValidation {
  try {
    if (!isRecord(body)) throw new Invalid(null, 'The request body must be a JSON object.');
    const model = body['model'];
    if (typeof model !== 'string' || model === '') throw new Invalid('model', "Missing required parameter: 'model'.");
    const input = body['input'];
    let turns: Turn[];
    if (typeof input === 'string') turns = [{ kind: 'message', role: 'user', text: input }];
    else if (Array.isArray(input)) turns = input.map(turnOf).filter((t): t is Turn => t !== null);
    else if (input === undefined) throw new Invalid('input', "Missing required parameter: 'input'.");
    else wrongType('input', 'a string or an array of input items', input);
    const maxOutputTokens = optional(body['max_output_tokens'], 'max_output_tokens', 'an integer', (x): x is number => Number.isInteger(x));
    if (maxOutputTokens !== null && maxOutputTokens < MIN_OUTPUT_TOKENS) {
      throw new Invalid('max_output_tokens', `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= ${MIN_OUTPUT_TOKENS}, but got ${maxOutputTokens} instead.`);
    }
    const temperature = optional(body['temperature'], 'temperature', 'a decimal', isNumber);
    if (temperature !== null && (temperature < 0 || temperature > 2)) throw new Invalid('temperature', `Invalid 'temperature': decimal out of range. Expected a value between 0 and 2, but got ${temperature} instead.`);
    const tools = toolsOf(body['tools']);
    const previous = optional(body['previous_response_id'], 'previous_response_id', 'a string', isString);
    return {
      ok: true,
      request: {
        model,
        turns,
        instructions: optional(body['instructions'], 'instructions', 'a string', isString),
        maxOutputTokens,
        tools,
        toolChoice: toolChoiceOf(body['tool_choice'], tools),
        parallelToolCalls: optional(body['parallel_tool_calls'], 'parallel_tool_calls', 'a boolean', isBool) ?? true,
        store: optional(body['store'], 'store', 'a boolean', isBool) ?? true,
        previousResponseId: previous,
        metadata: metadataOf(body['metadata']),
        stream: optional(body['stream'], 'stream', 'a boolean', isBool) ?? false,
        temperature,
      },
    };
  } catch (error) {
    if (error instanceof Invalid) return { ok: false, param: error.param, message: error.message };
    throw error;
  }
}
