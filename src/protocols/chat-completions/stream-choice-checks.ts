import type { StreamRuleCode } from './stream-rules.ts';
import type { AssembledChoice, AssembledToolCall } from './stream-assembly.ts';
import { previewJson } from '../../client/json-depth.ts';

export interface Where {
  at?: number;
  chunk?: number;
  event?: number;
  pointer?: string;
  expected?: unknown;
  received?: unknown;
}

export type Report = (rule: StreamRuleCode, message: string, where: Where) => void;

export interface ChoiceState {
  choice: AssembledChoice;
  deltas: number;
  finished: boolean;
  lastOffset: number;
  lastChunkIndex: number;
  lastEventIndex: number;
  tools: Map<number, AssembledToolCall>;
  highestToolIndex: number;
  /** A finish_reason outside the enum was seen (reported as finish-reason-invalid). */
  invalidFinish: boolean;
}

export type Json = Record<string, unknown>;

export const FINISH_REASONS = new Set(['stop', 'length', 'tool_calls', 'content_filter', 'function_call']);

export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function isNonNegInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

/** A short preview of a server value for a finding message; never a whole serialisation of what may be megabytes or deeply nested. */
export function show(v: unknown): string {
  const s = previewJson(v, 80);
  return s.length > 80 ? s.slice(0, 77) + '...' : s;
}

/**
 * Check one element of a chunk's `choices` against the state of its choice index, and assemble it.
 * Returns the text the delta carried ('' for a tool-call delta without argument text), or undefined
 * when it carried nothing that counts as a token.
 */
export function checkChoiceDelta(state: ChoiceState, raw: Json, ptr: string, report: Report): string | undefined {
  const choice = state.choice;
  const index = choice.index;
  const first = state.deltas === 0;
  state.deltas++;

  let finish: unknown = null;
  if (!('finish_reason' in raw)) {
    report('finish-reason-key-missing', `${ptr.slice(1)} omits finish_reason`, { pointer: `${ptr}/finish_reason`, expected: null, received: 'absent' });
  } else {
    finish = raw['finish_reason'];
    // Compat, CreateChatCompletionStreamResponse.choices[].finish_reason: enum, nullable. openai-node's
    // ChatCompletionStream throws "missing finish_reason" on "" (MUST); an unknown non-empty value is read (SHOULD).
    if (finish !== null && (typeof finish !== 'string' || finish === '')) {
      report('finish-reason-invalid', `finish_reason ${show(finish)} is not null or a non-empty string`, { pointer: `${ptr}/finish_reason`, expected: [...FINISH_REASONS, null], received: finish });
      state.invalidFinish = true;
    } else if (typeof finish === 'string' && !FINISH_REASONS.has(finish)) {
      report('finish-reason-unknown', `finish_reason ${show(finish)} is not a known value`, { pointer: `${ptr}/finish_reason`, expected: [...FINISH_REASONS, null], received: finish });
    }
  }
  const wasFinished = state.finished;
  // "" is how some servers say null (already reported above); it does not finish the choice.
  if (typeof finish === 'string' && finish !== '') {
    if (wasFinished) {
      report('finish-reason-count', `choice ${index} got a second non-null finish_reason ${show(finish)}`, { pointer: `${ptr}/finish_reason`, expected: 'one finish_reason per choice', received: finish });
    }
    state.finished = true;
    choice.finishReason = finish;
  }

  const delta = raw['delta'];
  if (!isObject(delta)) {
    report('delta-invalid', `${ptr.slice(1)}.delta is ${show(delta)}`, { pointer: `${ptr}/delta`, expected: 'an object', received: delta === undefined ? 'absent' : delta });
    return undefined;
  }
  const role = delta['role'];
  if (first) {
    if (role !== 'assistant') {
      report('role-missing-first', `first delta of choice ${index} has role ${show(role)}`, { pointer: `${ptr}/delta/role`, expected: 'assistant', received: role === undefined ? 'absent' : role });
    }
  } else if (role !== undefined && role !== null) {
    report('role-repeated', `role repeated on a later delta of choice ${index}`, { pointer: `${ptr}/delta/role`, expected: 'absent', received: role });
  }
  if (typeof role === 'string' && choice.role === undefined) choice.role = role;

  let text: string | undefined;
  // Seed, Streamed chunk: "The text fragment is at choices[0].delta.content and may be absent."
  const content = delta['content'];
  if (content !== undefined && content !== null) {
    if (typeof content !== 'string') {
      report('delta-invalid', `delta.content is ${show(content)}, not a string or null`, { pointer: `${ptr}/delta/content`, expected: 'string or null', received: content });
    } else {
      choice.content = choice.content === null ? content : choice.content + content;
      if (content !== '') text = content;
    }
  }
  const refusal = delta['refusal'];
  if (typeof refusal === 'string') {
    choice.refusal = choice.refusal === null ? refusal : choice.refusal + refusal;
    if (refusal !== '') text = (text ?? '') + refusal;
  }
  const toolCalls = delta['tool_calls'];
  let toolDelta = false;
  if (toolCalls !== undefined && toolCalls !== null) {
    if (!Array.isArray(toolCalls)) {
      report('tool-index-invalid', `delta.tool_calls is ${show(toolCalls)}, not an array`, { pointer: `${ptr}/delta/tool_calls`, expected: 'an array', received: toolCalls });
    } else {
      for (let k = 0; k < toolCalls.length; k++) {
        const args = checkToolDelta(state, toolCalls[k], `${ptr}/delta/tool_calls/${k}`, report);
        toolDelta = true;
        if (args !== '') text = (text ?? '') + args;
      }
    }
  }
  const carries = text !== undefined || toolDelta;
  if (carries && wasFinished) {
    report('delta-after-finish', `choice ${index} carries content or tool calls after its finish chunk`, { pointer: `${ptr}/delta`, expected: 'nothing after finish_reason', received: delta });
  } else if (carries && typeof finish === 'string' && finish !== '') {
    report('finish-chunk-content', `the finish chunk of choice ${index} also carries content or tool calls`, { pointer: `${ptr}/delta`, expected: {}, received: delta });
  }
  return text ?? (toolDelta ? '' : undefined);
}

/** Returns the argument text the tool-call delta carried. */
function checkToolDelta(state: ChoiceState, raw: unknown, ptr: string, report: Report): string {
  if (!isObject(raw)) {
    report('tool-index-invalid', `tool-call delta is ${show(raw)}`, { pointer: ptr, expected: 'an object with an integer index', received: raw });
    return '';
  }
  const fn = raw['function'];
  const fnObj = isObject(fn) ? fn : undefined;
  const id = raw['id'];
  const type = raw['type'];
  const name = fnObj?.['name'];
  const rawIndex = raw['index'];
  let index: number;
  if (isNonNegInt(rawIndex)) index = rawIndex;
  else {
    report('tool-index-invalid', `tool-call delta index is ${'index' in raw ? show(rawIndex) : 'absent'}`, {
      pointer: `${ptr}/index`,
      expected: 'an integer >= 0',
      received: rawIndex ?? 'absent',
    });
    // Assembled as lenient clients do: a delta with a new id starts the next call, else it continues the last one.
    const last = state.tools.get(state.highestToolIndex);
    const startsNew = last === undefined || (typeof id === 'string' && id !== '' && id !== last.id);
    index = startsNew ? state.highestToolIndex + 1 : state.highestToolIndex;
  }
  let call = state.tools.get(index);
  if (call === undefined) {
    if (index !== state.highestToolIndex + 1) {
      report('tool-index-gap', `new tool-call index ${index} after highest ${state.highestToolIndex}`, { pointer: `${ptr}/index`, expected: state.highestToolIndex + 1, received: index });
    }
    if (index > state.highestToolIndex) state.highestToolIndex = index;
    const missing: string[] = [];
    if (typeof id !== 'string' || id === '') missing.push('id');
    if (type !== 'function') missing.push('type "function"');
    if (typeof name !== 'string' || name === '') missing.push('function.name');
    if (missing.length > 0) {
      report('tool-first-delta-incomplete', `first delta of tool call ${index} lacks ${missing.join(', ')}`, {
        pointer: ptr,
        expected: { id: 'non-empty string', type: 'function', function: { name: 'non-empty string' } },
        received: raw,
      });
    }
    call = {
      index,
      id: typeof id === 'string' ? id : undefined,
      type: typeof type === 'string' ? type : undefined,
      name: typeof name === 'string' ? name : undefined,
      arguments: '',
    };
    state.tools.set(index, call);
    state.choice.toolCalls.push(call);
  } else {
    const changed: string[] = [];
    // tool-identity-changed: a later delta's id or name, even unchanged, is appended by clients that concatenate
    // (openai-python accumulate_delta, openai-go's accumulator for the name, pydantic-ai, LangChain:
    // https://github.com/ggml-org/llama.cpp/issues/13774); "" and null read as absent.
    if (id !== undefined && id !== null && id !== '') changed.push(id === call.id ? `id ${show(id)} repeated` : `id ${show(call.id)} -> ${show(id)}`);
    if (type !== undefined && type !== null && type !== call.type) changed.push(`type ${show(call.type)} -> ${show(type)}`);
    if (name !== undefined && name !== null && name !== '') changed.push(name === call.name ? `name ${show(name)} repeated` : `name ${show(call.name)} -> ${show(name)}`);
    if (changed.length > 0) {
      report('tool-identity-changed', `tool call ${index} changed identity: ${changed.join('; ')}`, {
        pointer: ptr,
        expected: { id: call.id, type: call.type, name: call.name },
        received: { id, type, name },
      });
    }
    if (call.id === undefined && typeof id === 'string' && id !== '') call.id = id;
    if (call.name === undefined && typeof name === 'string' && name !== '') call.name = name;
    if (call.type === undefined && typeof type === 'string') call.type = type;
  }
  if (fnObj !== undefined && 'arguments' in fnObj) {
    const args = fnObj['arguments'];
    if (typeof args === 'string') {
      call.arguments += args;
      return args;
    }
    if (args !== null) {
      report('tool-arguments-not-string', `function.arguments is ${show(args)}, not a string`, { pointer: `${ptr}/function/arguments`, expected: 'a string', received: args });
      call.arguments += JSON.stringify(args) ?? '';
    }
  }
  return '';
}
