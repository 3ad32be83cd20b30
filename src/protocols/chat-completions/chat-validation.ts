// The request validation of POST /v1/chat/completions as the bundled mock applies it (and a server
// should): OpenAI's 400s, each naming the member at fault in `param`. Some mock faults loosen it.
import type { AskMessage, AskTool, AskToolChoice, GenerationAsk, MockParsed, MockRefusal } from '../protocol-mock.ts';
import { parseResponseFormat } from './chat-response-format.ts';

type Role = AskMessage['role'];

/** The request members the seed's table shows: the core every server has. */
export const CORE_CHAT_MEMBERS: ReadonlySet<string> = new Set(['model', 'messages', 'temperature', 'stream', 'tools']);

const ROLES = new Set<string>(['system', 'developer', 'user', 'assistant', 'tool']);
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

class Invalid extends Error {
  constructor(readonly refusal: MockRefusal) {
    super(refusal.message);
  }
}

function fail(param: string | null, message: string): never {
  throw new Invalid({ ok: false, param, message });
}

function wrongType(param: string, expected: string, value: unknown): never {
  fail(param, `Invalid type for '${param}': expected ${expected}, but got ${typeName(value)} instead.`);
}

function optionalNumber(body: Record<string, unknown>, key: string, min: number, max: number, integer = false): number | null {
  const value = body[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isFinite(value)) wrongType(key, integer ? 'an integer' : 'a decimal', value);
  if (integer && !Number.isInteger(value)) wrongType(key, 'an integer', value);
  if (value < min) fail(key, `Invalid '${key}': decimal below minimum value. Expected a value >= ${min}, but got ${value} instead.`);
  if (value > max) fail(key, `Invalid '${key}': decimal above maximum value. Expected a value <= ${max}, but got ${value} instead.`);
  return value;
}

function textOf(content: unknown, param: string, allowNull: boolean): string | null {
  if (content === undefined || content === null) {
    if (allowNull) return null;
    fail(param, `Missing required parameter: '${param}'.`);
  }
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) wrongType(param, 'one of a string or array of objects', content);
  const texts: string[] = [];
  content.forEach((part, i) => {
    const p = `${param}[${i}]`;
    if (typeof part !== 'object' || part === null || Array.isArray(part)) wrongType(p, 'an object', part);
    const type = (part as Record<string, unknown>)['type'];
    if (typeof type !== 'string') fail(`${p}.type`, `Missing required parameter: '${p}.type'.`);
    if (type === 'text') {
      const text = (part as Record<string, unknown>)['text'];
      if (typeof text !== 'string') wrongType(`${p}.text`, 'a string', text);
      texts.push(text);
    } else if (type !== 'image_url' && type !== 'input_audio' && type !== 'file' && type !== 'refusal') {
      fail(`${p}.type`, `Invalid value: '${type}'. Supported values are: 'text', 'image_url', 'input_audio', 'file' and 'refusal'.`);
    }
  });
  return texts.join('');
}

function parseMessage(value: unknown, i: number, faults: ReadonlySet<string>): AskMessage {
  const p = `messages[${i}]`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) wrongType(p, 'an object', value);
  const m = value as Record<string, unknown>;
  const role = m['role'] as unknown;
  if (role === undefined) fail(`${p}.role`, `Missing required parameter: '${p}.role'.`);
  if (typeof role !== 'string') wrongType(`${p}.role`, 'a string', role);
  if (!ROLES.has(role) && !faults.has('unknown-role-accepted')) fail(`${p}.role`, `Invalid value: '${role}'. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'.`);
  const toolCalls: AskMessage['toolCalls'] = [];
  let toolCallId: string | null = null;
  if (role === 'assistant') {
    const calls = m['tool_calls'];
    if (calls !== undefined && calls !== null) {
      if (!Array.isArray(calls)) wrongType(`${p}.tool_calls`, 'an array', calls);
      calls.forEach((c, k) => {
        const cp = `${p}.tool_calls[${k}]`;
        if (typeof c !== 'object' || c === null || Array.isArray(c)) wrongType(cp, 'an object', c);
        const call = c as Record<string, unknown>;
        if (typeof call['id'] !== 'string') wrongType(`${cp}.id`, 'a string', call['id']);
        if (call['type'] !== 'function') fail(`${cp}.type`, `Invalid value for '${cp}.type': expected 'function'.`);
        const fn = call['function'];
        if (typeof fn !== 'object' || fn === null || Array.isArray(fn)) wrongType(`${cp}.function`, 'an object', fn);
        const f = fn as Record<string, unknown>;
        if (typeof f['name'] !== 'string') wrongType(`${cp}.function.name`, 'a string', f['name']);
        if (typeof f['arguments'] !== 'string') wrongType(`${cp}.function.arguments`, 'a string', f['arguments']);
        toolCalls.push({ id: call['id'] as string, type: 'function', function: { name: f['name'] as string, arguments: f['arguments'] as string } });
      });
    }
  }
  const text = textOf(m['content'], `${p}.content`, role === 'assistant' && toolCalls.length > 0 ? true : role === 'assistant');
  if (role === 'assistant' && text === null && toolCalls.length === 0) {
    fail(`${p}.content`, `Invalid '${p}.content': 'content' is required unless 'tool_calls' is specified.`);
  }
  if (role === 'tool') {
    const id = m['tool_call_id'];
    if (id === undefined || id === null) fail(`${p}.tool_call_id`, `Missing required parameter: '${p}.tool_call_id'.`);
    if (typeof id !== 'string') wrongType(`${p}.tool_call_id`, 'a string', id);
    toolCallId = id;
  }
  const name = m['name'];
  if (name !== undefined && typeof name !== 'string') wrongType(`${p}.name`, 'a string', name);
  return { role: ROLES.has(role) ? (role as Role) : 'user', text, toolCalls, toolCallId };
}

function parseTools(body: Record<string, unknown>): AskTool[] {
  const tools = body['tools'];
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) wrongType('tools', 'an array', tools);
  return tools.map((t, i) => {
    const p = `tools[${i}]`;
    if (typeof t !== 'object' || t === null || Array.isArray(t)) wrongType(p, 'an object', t);
    const tool = t as Record<string, unknown>;
    if (tool['type'] !== 'function') fail(`${p}.type`, `Invalid value for '${p}.type': supported value is 'function'.`);
    const fn = tool['function'];
    if (typeof fn !== 'object' || fn === null || Array.isArray(fn)) wrongType(`${p}.function`, 'an object', fn);
    const f = fn as Record<string, unknown>;
    const name = f['name'];
    if (typeof name !== 'string') wrongType(`${p}.function.name`, 'a string', name);
    if (!TOOL_NAME.test(name)) fail(`${p}.function.name`, `Invalid '${p}.function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$' (at most 64 characters).`);
    const description = f['description'];
    if (description !== undefined && typeof description !== 'string') wrongType(`${p}.function.description`, 'a string', description);
    const parameters = f['parameters'];
    if (parameters !== undefined && (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters))) {
      wrongType(`${p}.function.parameters`, 'an object', parameters);
    }
    return { name, description: typeof description === 'string' ? description : null, parameters: (parameters ?? { type: 'object', properties: {} }) as Record<string, unknown> };
  });
}

function parseToolChoice(body: Record<string, unknown>, tools: AskTool[]): AskToolChoice {
  const choice = body['tool_choice'];
  if (choice === undefined || choice === null) return tools.length > 0 ? { mode: 'auto' } : { mode: 'none' };
  if (tools.length === 0) fail('tool_choice', "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.");
  if (choice === 'none' || choice === 'auto' || choice === 'required') return { mode: choice };
  if (typeof choice === 'string') fail('tool_choice', `Invalid value: '${choice}'. Supported values are: 'none', 'auto', and 'required'.`);
  if (typeof choice !== 'object' || Array.isArray(choice)) wrongType('tool_choice', 'a string or an object', choice);
  const c = choice as Record<string, unknown>;
  if (c['type'] !== 'function') fail('tool_choice.type', "Invalid value for 'tool_choice.type': expected 'function'.");
  const fn = c['function'];
  const name = typeof fn === 'object' && fn !== null ? (fn as Record<string, unknown>)['name'] : undefined;
  if (typeof name !== 'string') wrongType('tool_choice.function.name', 'a string', name);
  if (!tools.some((t) => t.name === name)) fail('tool_choice', `Invalid value for 'tool_choice': function '${name}' is not among the provided tools.`);
  return { mode: 'named', name };
}

function parseStop(body: Record<string, unknown>): string[] {
  const stop = body['stop'];
  if (stop === undefined || stop === null) return [];
  if (typeof stop === 'string') return stop.length > 0 ? [stop] : [];
  if (!Array.isArray(stop)) wrongType('stop', 'one of a string or array of strings', stop);
  if (stop.length > 4) fail('stop', `Invalid 'stop': array too long. Expected an array with maximum length 4, but got an array with length ${stop.length} instead.`);
  stop.forEach((s, i) => {
    if (typeof s !== 'string') wrongType(`stop[${i}]`, 'a string', s);
  });
  return (stop as string[]).filter((s) => s.length > 0);
}

/** Validates a parsed chat-completions body; every rejection names the offending `param`. */
export function validateChatRequest(parsed: unknown, faults: ReadonlySet<string>): MockParsed<GenerationAsk> | MockRefusal {
  try {
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      fail(null, `Invalid request body: expected a JSON object, but got ${typeName(parsed)} instead.`);
    }
    const body = parsed as Record<string, unknown>;
    // Legal mode legal-refuses-extensions (a server of the seed's table and nothing more): a member beyond it is refused, named.
    if (faults.has('legal-refuses-extensions')) {
      const extra = Object.keys(body).find((k) => !CORE_CHAT_MEMBERS.has(k));
      if (extra !== undefined) fail(extra, `Unrecognized request argument supplied: ${extra}`);
    }
    if (faults.has('documented-param-rejected')) {
      const rejected = ['top_p', 'seed', 'user', 'response_format', 'presence_penalty', 'frequency_penalty'].find((k) => k in body);
      // Refused without saying which member: not a server that lacks an extension (that names it), a broken one.
      if (rejected !== undefined) fail(null, 'The request could not be processed.');
    }
    const model = body['model'];
    if (model === undefined || model === null) fail('model', "Missing required parameter: 'model'.");
    if (typeof model !== 'string') wrongType('model', 'a string', model);
    if (model.length === 0) fail('model', "Invalid 'model': empty string.");
    const messages = body['messages'];
    if (messages === undefined || messages === null) fail('messages', "Missing required parameter: 'messages'.");
    if (!Array.isArray(messages)) wrongType('messages', 'an array', messages);
    if (messages.length === 0 && !faults.has('empty-messages-accepted')) fail('messages', "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.");
    const parsedMessages = messages.map((m, i) => parseMessage(m, i, faults));
    if (parsedMessages.length === 0) parsedMessages.push({ role: 'user', text: '', toolCalls: [], toolCallId: null });
    const temperature = faults.has('temperature-unvalidated') ? null : optionalNumber(body, 'temperature', 0, 2);
    optionalNumber(body, 'top_p', 0, 1);
    optionalNumber(body, 'presence_penalty', -2, 2);
    optionalNumber(body, 'frequency_penalty', -2, 2);
    const n = optionalNumber(body, 'n', 1, 128, true) ?? 1;
    const maxTokens = optionalNumber(body, 'max_completion_tokens', 1, 1_000_000, true) ?? optionalNumber(body, 'max_tokens', 1, 1_000_000, true);
    const seed = optionalNumber(body, 'seed', Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, true);
    // Compat (vLLM SamplingParams): ignore_eos is a boolean, min_tokens an integer >= 0.
    const ignoreEos = body['ignore_eos'];
    if (ignoreEos !== undefined && ignoreEos !== null && typeof ignoreEos !== 'boolean') wrongType('ignore_eos', 'a boolean', ignoreEos);
    const minTokens = optionalNumber(body, 'min_tokens', 0, 1_000_000, true);
    const stop = parseStop(body);
    const stream = body['stream'];
    if (stream !== undefined && stream !== null && typeof stream !== 'boolean') wrongType('stream', 'a boolean', stream);
    const streamOptions = body['stream_options'];
    let includeUsage = false;
    if (streamOptions !== undefined && streamOptions !== null) {
      if (typeof streamOptions !== 'object' || Array.isArray(streamOptions)) wrongType('stream_options', 'an object', streamOptions);
      // Compat (OpenAI): "The 'stream_options' parameter is only allowed when 'stream' is enabled."
      if (stream !== true && !faults.has('stream-options-without-stream-accepted')) {
        fail('stream_options', "The 'stream_options' parameter is only allowed when 'stream' is enabled.");
      }
      const iu = (streamOptions as Record<string, unknown>)['include_usage'];
      if (iu !== undefined && iu !== null && typeof iu !== 'boolean') wrongType('stream_options.include_usage', 'a boolean', iu);
      includeUsage = iu === true;
    }
    const user = body['user'];
    if (user !== undefined && user !== null && typeof user !== 'string') wrongType('user', 'a string', user);
    const ptc = body['parallel_tool_calls'];
    if (ptc !== undefined && ptc !== null && typeof ptc !== 'boolean') wrongType('parallel_tool_calls', 'a boolean', ptc);
    const tools = parseTools(body);
    const toolChoice = parseToolChoice(body, tools);
    const format = parseResponseFormat(body, parsedMessages.map((m) => m.text), faults);
    if ('ok' in format) return format;
    return {
      ok: true,
      model,
      stream: stream === true,
      ask: { model, messages: parsedMessages, temperature, n, stop, maxTokens, stream: stream === true, includeUsage, tools, toolChoice, parallelToolCalls: ptc !== false, seed, format, ignoreEos: ignoreEos === true, minTokens, raw: body },
    };
  } catch (error) {
    if (error instanceof Invalid) return error.refusal;
    throw error;
  }
}
