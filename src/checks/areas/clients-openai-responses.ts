import type OpenAI from 'openai';
import type { CheckDef } from '../context/check-types.ts';
import { CLIENT_NAMES, openaiNode } from '../clients/client-libraries.ts';
import { clientOp, CLIENT_MAX_TOKENS, CLIENT_PROMPT, TOOL_PROMPT, TOOL_RESULT, toolCallProblem, textProblem, type OpEnv, type OpResult } from '../clients/client-op.ts';
import { probeCapability } from '../requests/capability-probes.ts';
import { offered } from '../registry/capabilities.ts';
import { weatherTool } from '../requests/responses-requests.ts';

// Compat (OpenAI API reference, Responses): openai-node, the reference client, on POST /v1/responses
// (issue 36). Each operation is what its documentation shows a user doing, with only baseURL and
// apiKey set, and reports what the SDK itself says. Written against the calls openai-node 6 and 7
// share (responses.create, responses.stream, finalResponse, output_text).

const client = CLIENT_NAMES.openai;
const forced = { type: 'function', name: weatherTool.name } as const;
const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** Why a Responses operation does not run: a server that does not serve the API (a failure under --expect responses); undefined where it does. */
export async function responsesNotServed(env: OpEnv): Promise<{ skip: string } | { problem: string } | undefined> {
  const served = await env.probe('responses');
  if (offered(served.status)) return undefined;
  const what = `the server ${served.status === 'absent' ? 'does not serve' : served.status} POST /v1/responses (${served.detail})`;
  if (env.expects('responses')) return { problem: `--expect responses: ${what}` };
  return { skip: `capability responses not offered: ${what}; --expect responses makes this fail` };
}

/** The SDK, or a reason not to run: not installed, or the API not served. */
async function sdk(env: OpEnv): Promise<OpenAI | 'not-installed' | { skip: string } | { problem: string }> {
  return (await responsesNotServed(env)) ?? (await openaiNode(env.t, env.key)) ?? 'not-installed';
}

const bounded = { max_output_tokens: CLIENT_MAX_TOKENS } as const;

/**
 * A Response's answer as the caller reads it. Compat, Response.status and incomplete_details: a
 * truthful `incomplete` (max_output_tokens reached) may carry little or no text; an empty answer
 * the server says is `completed` is the model's choice, undecided (issue 27), unless the output
 * holds text where openai-node does not read it (a silent wrong result); anything else is the server's.
 */
export function responseTextProblem(text: unknown, status: unknown, reason: unknown, output: unknown): OpResult {
  if (typeof text !== 'string') return { problem: 'the client returned no output_text', expected: 'a string', received: text };
  if (status === 'incomplete' && reason === 'max_output_tokens') return undefined;
  if (status !== 'completed') return { problem: `the response has status ${JSON.stringify(status)}`, expected: 'completed, or incomplete (max_output_tokens)', received: { status, incomplete_details: reason ?? null } };
  if (text !== '') return undefined;
  const hidden = textOutsideParts(output);
  if (hidden !== undefined) return { problem: 'output_text is empty while the output holds text outside output_text parts: the caller gets no answer', expected: 'message content as [{"type": "output_text", "text": ...}]', received: hidden };
  return textProblem(text, 'stop', true);
}

/** Text a message item carries where clients do not read it: a content string, or a part of another type. */
function textOutsideParts(output: unknown): unknown {
  if (!Array.isArray(output)) return undefined;
  for (const item of output as { type?: unknown; content?: unknown }[]) {
    if (item?.type !== 'message') continue;
    if (typeof item.content === 'string' && item.content !== '') return item.content;
    if (Array.isArray(item.content)) {
      const part = (item.content as { type?: unknown; text?: unknown }[]).find((p) => p?.type !== 'output_text' && typeof p?.text === 'string' && p.text !== '');
      if (part !== undefined) return part;
    }
  }
  return undefined;
}

/** output_text as openai-node builds it (ResponsesParser addOutputText): every output_text part of every message item, joined. */
export function outputTextOf(output: unknown): string {
  if (!Array.isArray(output)) return '';
  let text = '';
  for (const item of output as { type?: unknown; content?: unknown }[]) {
    if (item?.type !== 'message' || !Array.isArray(item.content)) continue;
    for (const part of item.content as { type?: unknown; text?: unknown }[]) if (part?.type === 'output_text' && typeof part.text === 'string') text += part.text;
  }
  return text;
}

const reasonOf = (r: { incomplete_details?: { reason?: unknown } | null }): unknown => r.incomplete_details?.reason;

const create = clientOp({
  name: 'client-openai-responses-create',
  id: 'CLIENT-RESP-001',
  client,
  call: 'client.responses.create()',
  title: 'returns a Response whose output_text is the answer',
  async run(env) {
    const c = await sdk(env);
    if (c === 'not-installed' || 'skip' in c || 'problem' in c) return c;
    const res = await c.responses.create({ model: env.model, input: CLIENT_PROMPT, ...bounded });
    if (typeof res !== 'object' || res === null || !Array.isArray(res.output)) return { problem: 'returned no Response with an output list', received: res };
    return responseTextProblem(res.output_text, res.status, reasonOf(res), res.output);
  },
});

const streamedCreate = clientOp({
  name: 'client-openai-responses-create-stream',
  id: 'CLIENT-RESP-002',
  client,
  call: 'client.responses.create({ stream: true })',
  title: 'yields the text deltas and a terminal event whose response holds the same text',
  async run(env) {
    const c = await sdk(env);
    if (c === 'not-installed' || 'skip' in c || 'problem' in c) return c;
    const stream = await c.responses.create({ model: env.model, input: CLIENT_PROMPT, stream: true, ...bounded });
    let text = '';
    let terminal: { type: string; response?: { status?: unknown; output?: unknown; incomplete_details?: { reason?: unknown } | null } } | undefined;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (TERMINAL.has(event.type)) terminal = event as typeof terminal;
    }
    // The documented loop waits for response.completed to read the whole Response: without a terminal event the caller never has it.
    if (terminal === undefined) return { problem: 'the stream ended without response.completed, response.incomplete or response.failed: the caller never receives the Response', expected: 'a terminal event', received: text };
    const final = outputTextOf(terminal.response?.output);
    if (final !== text) return { problem: `the Response in ${terminal.type} holds other text than the deltas streamed`, expected: text, received: final };
    return responseTextProblem(text, terminal.response?.status, terminal.response?.incomplete_details?.reason, terminal.response?.output);
  },
});

const streamHelper = clientOp({
  name: 'client-openai-responses-stream',
  id: 'CLIENT-RESP-003',
  client,
  call: 'client.responses.stream()',
  title: 'streams the text and finalResponse() returns the Response assembled from it',
  async run(env) {
    const c = await sdk(env);
    if (c === 'not-installed' || 'skip' in c || 'problem' in c) return c;
    const s = c.responses.stream({ model: env.model, input: CLIENT_PROMPT, ...bounded });
    let text = '';
    for await (const event of s) if (event.type === 'response.output_text.delta') text += event.delta;
    const final = await s.finalResponse();
    if (final.output_text !== text) return { problem: 'finalResponse().output_text differs from the streamed text', expected: text, received: final.output_text };
    return responseTextProblem(text, final.status, reasonOf(final), final.output);
  },
});

/** Arguments parsed the way a user of the SDK parses them (`JSON.parse(call.arguments)`). */
function parsedArguments(args: unknown): unknown {
  try {
    return JSON.parse(args as string) as unknown;
  } catch (error) {
    return `not JSON: ${(error as Error).message}`;
  }
}

const toolRoundTrip = clientOp({
  name: 'client-openai-responses-tool-round-trip',
  id: 'CLIENT-RESP-004',
  client,
  call: 'client.responses.create({ tools })',
  title: 'returns the forced function_call with JSON arguments, and a text answer once the output items and the function_call_output are sent back',
  async run(env) {
    const c = await sdk(env);
    if (c === 'not-installed' || 'skip' in c || 'problem' in c) return c;
    const tools = [weatherTool];
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: TOOL_PROMPT }];
    const first = await c.responses.create({ model: env.model, input, tools, tool_choice: forced, ...bounded });
    const call = Array.isArray(first.output) ? first.output.find((item) => item.type === 'function_call') : undefined;
    // Whether the server honours tool_choice is RESP-010's to judge; here a model that made no call is undecided.
    if (call === undefined) return { skip: `undecided: the model made no function_call (status ${JSON.stringify(first.status)}); RESP-010 judges whether tool_choice is honoured` };
    const problem = toolCallProblem(call.name, parsedArguments(call.arguments));
    if (problem !== undefined) return problem;
    // The documented loop (OpenAI function-calling guide): the output items go back as they came, then the function's result.
    input.push(...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: JSON.stringify(TOOL_RESULT) });
    const second = await c.responses.create({ model: env.model, input, tools, ...bounded });
    return responseTextProblem(second.output_text, second.status, reasonOf(second), second.output);
  },
});

export const openaiResponsesClientChecks: CheckDef[] = [create, streamedCreate, streamHelper, toolRoundTrip];
