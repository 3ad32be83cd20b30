// The Responses API (compat: OpenAI "Responses", POST /v1/responses) as an instance of the protocol
// contract: a capability beyond the seed (responses), with stored responses as a capability of its
// own (responses-state), answered whole or as a stream checked as a state machine.
import { StringDecoder } from 'node:string_decoder';
import type { BuiltRequest, CheckedResponse, OutputTally, Protocol, RequestIntent, ResponseFacts as NormalFacts } from '../protocol.ts';
import type { MockSide } from '../protocol-mock.ts';
import { MIN_OUTPUT_TOKENS, RESPONSES_ROUTE, responsesBody, type InputItem, type ResponsesOptions } from './responses-request.ts';
import { checkResponseBody, isRecord, type ResponseFacts } from './responses-body.ts';
import { ResponsesStreamValidator, type ResponsesStreamResult } from './responses-stream.ts';
import { responsesRequirementIds, responsesRules, responsesStateRequirementIds } from './responses-rules.ts';
import { wholeBodyChecker } from '../whole-body.ts';
import { responsesMock } from './responses-mock.ts';

const route = { method: 'POST', path: RESPONSES_ROUTE } as const;

/**
 * The intent as a Responses request: system turns as instructions, the others as input items, tools
 * in the flat form. Continuing a kept Response, only the turns after it go, with its id as
 * previous_response_id (compat: "Use this to create multi-turn conversations"); the instructions
 * go every time, since "the instructions from a previous response will not be carried over".
 */
function responsesRequest(intent: RequestIntent): BuiltRequest {
  const system = intent.messages.filter((m) => m.role === 'system').map((m) => m.content);
  const all = intent.messages.filter((m) => m.role !== 'system');
  const continued = intent.continues;
  const turns = continued === undefined ? all : all.slice(continued.messages);
  const only = turns[0];
  // A tool result without its call id cannot be a function_call_output: it is given as the user's text.
  const input: string | InputItem[] = turns.length === 1 && only?.role === 'user' ? only.content : turns.map((m) => (m.role === 'assistant' ? { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: m.content, annotations: [] }] } : { type: 'message', role: 'user', content: [{ type: 'input_text', text: m.content }] }));
  const options: ResponsesOptions = {
    max_output_tokens: intent.maxOutputTokens,
    stream: intent.stream,
    ...(system.length === 0 ? {} : { instructions: system.join('\n') }),
    ...(continued === undefined ? {} : { previous_response_id: continued.id }),
    ...(intent.tools === undefined || intent.tools.length === 0 ? {} : { tools: intent.tools.map((t) => ({ type: 'function' as const, name: t.name, ...(t.description === undefined ? {} : { description: t.description }), parameters: t.parameters ?? { type: 'object', properties: {} }, strict: t.strict ?? false })) }),
  };
  const body = { ...(intent.extraBody ?? {}), ...(intent.options ?? {}), ...responsesBody(intent.model, input, options) };
  return { route, body: body as unknown as Record<string, unknown>, sent: { api: 'responses', stream: intent.stream, maxOutputTokens: intent.maxOutputTokens } };
}

const noUsage = { input: null, output: null, cachedInput: null, reasoning: null };

/** Compat, Response.incomplete_details.reason: "max_output_tokens": the answer stopped at the request's bound. */
const cutAtBound = (final: ResponseFacts | undefined): boolean => final?.status === 'incomplete' && final.incompleteReason === 'max_output_tokens';

/** The normalised facts of a Response read whole. */
function bodyFacts(f: ResponseFacts): NormalFacts {
  const calls = f.functionCalls.map((c) => ({ name: c.name, arguments: c.arguments }));
  return {
    events: 0,
    output: [],
    usage: f.usage === undefined ? noUsage : { input: f.usage.inputTokens, output: f.usage.outputTokens, cachedInput: f.usage.cachedTokens ?? null, reasoning: null },
    outputText: () => f.text + calls.map((c) => c.name + c.arguments).join(''),
    eventTexts: () => null,
    answer: f.text === '' && calls.length > 0 ? null : f.text,
    ...(f.id === undefined ? {} : { id: f.id }),
    toolCalls: calls,
    finish: f.status ?? null,
    ...(cutAtBound(f) ? { cutAtLimit: true } : {}),
  };
}

/**
 * Each output event's text, recovered from what the deltas assembled: all the answer's text (one
 * message) or all one call's arguments; otherwise (text and calls interleaved, reasoning) null, and
 * the tokens are split by characters.
 */
function eventTexts(f: ResponsesStreamResult['facts']): string[] | null {
  const events = f.outputEvents;
  const kinds = new Set(events.map((e) => e.kind));
  const only = f.functionCalls.length === 1 ? f.functionCalls[0] : undefined;
  const whole = kinds.size === 1 && kinds.has('text') ? f.text : kinds.size === 1 && kinds.has('arguments') && f.text === '' && only !== undefined ? only.arguments : null;
  if (whole === null) return null;
  let pos = 0;
  const texts = events.map((e) => whole.slice(pos, (pos += e.chars)));
  return pos === whole.length ? texts : null;
}

/** The normalised facts of a stream: its output events (TTFT, ITL, cut points), usage and terminal status. */
function streamFacts(r: ResponsesStreamResult): NormalFacts {
  const f = r.facts;
  const id = f.final?.id ?? f.responseId;
  const u = f.usage;
  const calls = f.functionCalls.map((c) => ({ name: c.name, arguments: c.arguments }));
  return {
    events: f.events,
    output: f.outputEvents.map((e) => ({ arrivedAt: e.arrivedAt, chars: e.chars, ...(e.kind === 'reasoning' ? { reasoning: true as const } : {}) })),
    usage: u === undefined ? noUsage : { input: u.inputTokens, output: u.outputTokens, cachedInput: u.cachedTokens ?? null, reasoning: null },
    outputText: () => f.text + calls.map((c) => c.name + c.arguments).join(''),
    eventTexts: () => eventTexts(f),
    answer: f.text === '' && calls.length > 0 ? null : f.text,
    ...(id === undefined ? {} : { id }),
    toolCalls: calls,
    ...(cutAtBound(f.final) ? { cutAtLimit: true } : {}),
    ...(f.firstFunctionCallAt === undefined ? {} : { firstToolCallAt: f.firstFunctionCallAt }),
    finish: f.final?.status ?? f.terminal ?? null,
  };
}

const sentBound = (sent: Record<string, unknown>): { maxOutputTokens?: number } => (typeof sent['maxOutputTokens'] === 'number' ? { maxOutputTokens: sent['maxOutputTokens'] } : {});

/** Counts the events that carry output (text or function-call arguments) as the bytes arrive, split anywhere. */
function responsesOutputTally(): OutputTally {
  const decoder = new StringDecoder('utf8');
  const delta = /"type"\s*:\s*"response\.(?:output_text|function_call_arguments)\.delta"/;
  let line = '';
  let count = 0;
  return {
    feed(chunk) {
      const text = line + decoder.write(Buffer.from(chunk));
      const lines = text.split(/\r\n|\r|\n/);
      line = lines.pop() ?? '';
      for (const l of lines) if (l.startsWith('data:') && delta.test(l) && !/"delta"\s*:\s*""/.test(l)) count++;
      return count;
    },
  };
}

export const responses: Protocol = {
  name: 'responses',
  title: 'Responses API',
  moduleUrl: import.meta.url,
  routes: [route],
  streaming: 'optional',
  chains: true,
  minOutputTokens: MIN_OUTPUT_TOKENS,
  capability: { name: 'responses', title: 'Responses API', member: 'POST /v1/responses', ids: responsesRequirementIds },
  capabilities: [{ name: 'responses-state', title: 'Stored responses', member: 'previous_response_id (GET, DELETE /v1/responses/{id})', ids: responsesStateRequirementIds }],
  rules: responsesRules,
  units: { output: 'tokens' },
  request: responsesRequest,
  checker(sent, options = {}) {
    if (!sent.stream) {
      return wholeBodyChecker(options, (body): CheckedResponse => {
        const r = checkResponseBody(body, sentBound(sent));
        const unusable = !isRecord(body) || !Array.isArray(body['output']);
        return { findings: r.findings, facts: bodyFacts(r.facts), ...(unusable ? { unusable: { detail: `${responsesRules['output-invalid']?.requirement ?? 'RESP-001'} the answer is not a Response with an output list`, finding: 'output-invalid' } } : {}) };
      });
    }
    const validator = new ResponsesStreamValidator({ ...sentBound(sent), ...(options.jsonDepthChecked === true ? { jsonDepthChecked: true } : {}) });
    return {
      feed: (chunk, at) => validator.feed(chunk, at),
      end: () => {
        const r = validator.end();
        return { findings: r.findings, facts: streamFacts(r) };
      },
    };
  },
  outputTally: responsesOutputTally,
  mock: responsesMock as unknown as MockSide,
};

/** The check worker imports this module by `moduleUrl` and reads this export. */
export const protocol = responses;
