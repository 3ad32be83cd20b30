import type { CheckContext } from '../context/check-types.ts';
import type { HttpExchange } from '../http/check-http.ts';
import type { CapabilityProbe } from '../registry/capabilities.ts';
import { at, isRecord } from '../kernel/evidence.ts';
import { modelUnderTest } from './common-requests.ts';
import { sharedRequest } from '../context/shared-requests.ts';
import { RESPONSES_PATH, functionTool, responsesBody, type InputItem, type ResponsesOptions } from '../../protocols/responses/responses-request.ts';

// The requests the Responses checks and probes share. Every one is bounded (max_output_tokens), so
// a model's length never sets a run's cost.

/** The bound of a check's answer; OpenAI's minimum (16) where the check wants the answer cut. */
export const ANSWER_BOUND = 64;
export const CUT_BOUND = 16;

export const PLAIN_INPUT = 'Say hello in one short sentence.';
export const PLAIN_METADATA = { iari: 'responses-check' };
/** 32 words: what instructions must add to the server's own input token count (RESP-008). */
export const INSTRUCTIONS = 'You are a patient assistant for a small public library. Answer in plain words, keep every answer short, name the shelf where a book stands, and never invent a title the catalogue does not hold.';
/** The earlier turns of a conversation given as input items (RESP-007, RESP-008): 40 words between them. */
export const EARLIER_USER = 'I am planning a walk along the river next Saturday morning with two friends who like birds and old bridges.';
export const EARLIER_ASSISTANT = 'That sounds lovely. Start early, bring binoculars, and follow the east bank, where the herons nest near the stone bridge built in the eighteenth century.';
export const LAST_QUESTION = 'Which bank did you say?';
/** Turn 1 of a stored conversation (RESP-STATE-002): 41 words the chained turn must carry. */
export const FIRST_TURN = 'Please remember this for the rest of our conversation: the secret word is papaya, the meeting is on the third floor, the room is number forty-two, and the person to ask for at the front desk is called Margit Holloway.';
export const SECOND_TURN = 'What was the secret word?';

export const weatherTool = functionTool('get_weather', 'Current weather in a city', { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false });
export const WEATHER_QUESTION = 'What is the weather in Paris right now? Use the tool.';

export const words = (text: string): number => text.split(/\s+/).filter((w) => w !== '').length;

export function message(role: 'user' | 'assistant', text: string): InputItem {
  return role === 'user' ? { type: 'message', role, content: [{ type: 'input_text', text }] } : { type: 'message', role, content: [{ type: 'output_text', text, annotations: [] }] };
}

/** POST /v1/responses with the first model, bounded. */
export async function createResponse(ctx: CheckContext, input: string | InputItem[], options: ResponsesOptions = {}): Promise<HttpExchange> {
  return ctx.http.post(RESPONSES_PATH, responsesBody(await modelUnderTest(ctx), input, { max_output_tokens: ANSWER_BOUND, ...options }));
}

/** One plain answer with metadata, sent once per run (the responses probe and the RESP checks read it). */
export const plainResponse = sharedRequest('responses:plain', (ctx: CheckContext) => createResponse(ctx, PLAIN_INPUT, { metadata: PLAIN_METADATA }));

/** Turn 1 of a stored conversation and turn 2 chained to it by previous_response_id, once per run (the state probe and RESP-STATE read them). */
export const chainedTurns = sharedRequest('responses:chain', async (ctx: CheckContext): Promise<{ first: HttpExchange; chained: HttpExchange | undefined }> => {
  const first = await createResponse(ctx, FIRST_TURN);
  const id = at(first.json, 'id');
  if (first.status !== 200 || typeof id !== 'string') return { first, chained: undefined };
  return { first, chained: await createResponse(ctx, SECOND_TURN, { previous_response_id: id }) };
});

const found = (ex: HttpExchange | undefined, status: CapabilityProbe['status'], detail: string): CapabilityProbe => ({ status, detail, ...(ex?.requestId === undefined ? {} : { requestId: ex.requestId }) });
const served = (ex: HttpExchange): string => `answered ${ex.status}${typeof at(ex.json, 'error', 'message') === 'string' ? `: ${String(at(ex.json, 'error', 'message')).slice(0, 120)}` : ''}`;

/**
 * Capability responses-state: a server that takes previous_response_id keeps state and is judged
 * on it (one that accepts and ignores it fails RESP-STATE-002); one that refuses it with a 4xx is
 * stateless, a legal profile (llama.cpp, Ollama).
 */
export async function probeResponsesState(ctx: CheckContext): Promise<CapabilityProbe> {
  const { first, chained } = await chainedTurns(ctx);
  if (chained === undefined) return found(first, 'undecided', `turn 1 ${served(first)} without a response id: nothing to chain to`);
  if (chained.status === 200) return found(chained, 'honoured', 'a turn with previous_response_id of turn 1 answered 200');
  if (chained.status >= 400 && chained.status < 500) return found(chained, 'refused', `previous_response_id ${served(chained)}`);
  return found(chained, 'undecided', `previous_response_id ${served(chained)}`);
}
