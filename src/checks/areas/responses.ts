import type { CheckContext, CheckDef } from '../context/check-types.ts';
import type { Judge } from '../kernel/judge.ts';
import type { HttpExchange } from '../http/check-http.ts';
import { requirementIdRange } from '../context/check-types.ts';
import { at, describeResponse, evidence, isRecord } from '../kernel/evidence.ts';
import { gate } from '../requests/capability-probes.ts';
import { modelUnderTest } from '../requests/common-requests.ts';
import { judgeResponsesFindings } from '../wire/responses-findings.ts';
import { ANSWER_BOUND, CUT_BOUND, EARLIER_ASSISTANT, EARLIER_USER, INSTRUCTIONS, LAST_QUESTION, PLAIN_INPUT, PLAIN_METADATA, WEATHER_QUESTION, createResponse, message, plainResponse, weatherTool, words } from '../requests/responses-requests.ts';
import { RESPONSES_PATH, functionCallOutput } from '../../protocols/responses/responses-request.ts';
import { checkResponseBody, type ResponseFacts, type SentResponse } from '../../protocols/responses/responses-body.ts';
import { responsesStreamChecks } from './responses-stream.ts';
import { responsesStateChecks } from './responses-state.ts';

const RESP = requirementIdRange('RESP', 1, 14);

/** A 200 answer checked as a Response (its findings judged), or the status judged under `id`. */
function answered(j: Judge, ex: HttpExchange, what: string, id: string, sent: SentResponse = {}): ResponseFacts | undefined {
  if (ex.status !== 200) {
    j.violated(id, evidence(ex, `${what} answered ${describeResponse(ex)}, not 200`, { expected: 200, received: ex.status }));
    return undefined;
  }
  const r = checkResponseBody(ex.json, sent);
  judgeResponsesFindings(j, ex, what, r.findings);
  return r.facts;
}

/** usage.input_tokens of an answer, when the server counted them (RESP-004 judges their absence). */
const inputTokens = (f: ResponseFacts | undefined): number | undefined => f?.usage?.inputTokens;

/** RESP-008: the server's own input count grows by at least half the words a member added; undefined when it cannot tell. */
function carried(j: Judge, ex: HttpExchange, what: string, withIt: ResponseFacts | undefined, without: ResponseFacts | undefined, added: number): boolean | undefined {
  const a = inputTokens(withIt);
  const b = inputTokens(without);
  if (a === undefined || b === undefined) return undefined;
  const need = Math.floor(added / 2);
  if (a - b >= need) return true;
  j.violated('RESP-008', evidence(ex, `${what}: usage.input_tokens is ${a}, ${a - b} more than without it (${b}); ${added} words were added, so at least ${need} more tokens reach a model that reads them`, { expected: `>= ${b + need}`, received: a, pointer: '/usage/input_tokens' }));
  return false;
}

async function refusals(ctx: CheckContext, j: Judge, model: string): Promise<void> {
  // Compat: an invalid request is refused with 400 in the error envelope, naming the member.
  const cases: [string, Record<string, unknown>, string][] = [
    ['a request without input', { model, max_output_tokens: ANSWER_BOUND }, 'input'],
    ['max_output_tokens as a string', { model, input: PLAIN_INPUT, max_output_tokens: 'many' }, 'max_output_tokens'],
  ];
  for (const [what, body, param] of cases) {
    const ex = await ctx.http.post(RESPONSES_PATH, body);
    const error = at(ex.json, 'error');
    if (ex.status < 400 || ex.status >= 500 || !isRecord(error) || typeof error['message'] !== 'string') {
      j.violated('RESP-013', evidence(ex, `${what} answered ${describeResponse(ex)}, not a 4xx {"error": {"message", "type", "param", "code"}}`, { expected: '4xx with the error envelope', received: ex.status >= 400 && ex.status < 500 ? ex.json ?? ex.text : ex.status }));
      continue;
    }
    j.pass('RESP-013');
    j.expect('RESP-014', error['param'] === param, () => evidence(ex, `${what} was refused naming param ${JSON.stringify(error['param']) ?? 'absent'}`, { expected: param, received: error['param'] ?? '(absent)', pointer: '/error/param' }));
  }
}

const responsesRequest: CheckDef = {
  name: 'responses',
  area: 'responses',
  ids: RESP,
  title: 'POST /v1/responses takes its input, instructions, bound, flat function tools, tool_choice and function_call_output round trip and answers a Response (output items, usage, status completed or incomplete with its reason, the metadata sent); refusals are 4xx in the error envelope naming the member',
  async run(ctx, j) {
    // Not in the seed: the Responses API is a capability (capabilities.ts), judged where the server serves it.
    if (!(await gate(ctx, j, 'responses'))) return;
    const model = await modelUnderTest(ctx);
    const plain = answered(j, await plainResponse(ctx), 'a plain answer', 'RESP-001', { maxOutputTokens: ANSWER_BOUND, metadata: PLAIN_METADATA });
    // A string input answered is half of RESP-007; the item list below is the other half.
    if (plain !== undefined) j.pass('RESP-007');
    const cutEx = await createResponse(ctx, 'Write a long story about a lighthouse keeper, in many paragraphs.', { max_output_tokens: CUT_BOUND });
    const cut = answered(j, cutEx, `an answer bounded at ${CUT_BOUND} tokens`, 'RESP-006', { maxOutputTokens: CUT_BOUND });
    const out = cut?.usage?.outputTokens;
    if (cut !== undefined && out === undefined) {
      for (const id of ['RESP-005', 'RESP-006']) if (!j.has(id)) j.skip(id, 'the bounded answer reports no usage.output_tokens (RESP-004): whether it was cut cannot be told');
    } else if (cut !== undefined && out !== undefined && out !== CUT_BOUND && !j.has('RESP-005')) {
      j.skip('RESP-005', out < CUT_BOUND ? `the model ended after ${out} tokens, before the bound of ${CUT_BOUND}: no answer was cut to judge` : `the bound of ${CUT_BOUND} was not kept (${out} tokens, RESP-006): no answer was cut to judge`);
    }
    // Input items: earlier turns given back (Codex and the Agents SDK resend the whole conversation).
    const itemsEx = await createResponse(ctx, [message('user', EARLIER_USER), message('assistant', EARLIER_ASSISTANT), message('user', LAST_QUESTION)]);
    const items = answered(j, itemsEx, 'an input list with two earlier turns', 'RESP-007');
    const alone = answered(j, await createResponse(ctx, LAST_QUESTION), 'the last turn alone', 'RESP-001');
    const instructedEx = await createResponse(ctx, LAST_QUESTION, { instructions: INSTRUCTIONS });
    const instructed = answered(j, instructedEx, 'the last turn with instructions', 'RESP-008');
    const viaInstructions = carried(j, instructedEx, 'instructions', instructed, alone, words(INSTRUCTIONS));
    const viaItems = carried(j, itemsEx, 'two earlier turns as input items', items, alone, words(EARLIER_USER) + words(EARLIER_ASSISTANT));
    if (viaInstructions === undefined && viaItems === undefined && !j.has('RESP-008')) j.skip('RESP-008', 'the server reports no usage.input_tokens (RESP-004): what reached the model cannot be counted');
    // Function tools, flat, with the call forced (the server claims the call: judged without judging the model).
    const forcedEx = await createResponse(ctx, WEATHER_QUESTION, { tools: [weatherTool], tool_choice: 'required' });
    const forced = answered(j, forcedEx, 'a flat function tool with tool_choice "required"', 'RESP-009');
    // Without an output list (RESP-001) there are no items to look for a call in.
    const hasOutput = (ex: HttpExchange): boolean => Array.isArray(at(ex.json, 'output'));
    const call = forced?.functionCalls.find((c) => c.name === weatherTool.name);
    if (forced !== undefined && !hasOutput(forcedEx)) {
      for (const id of ['RESP-009', 'RESP-010']) if (!j.has(id)) j.skip(id, 'the answer carried no output list (RESP-001): no call to look for');
    } else if (forced !== undefined) {
      if (call === undefined) {
        j.violated('RESP-010', evidence(forcedEx, `tool_choice "required": the output holds ${forced.itemTypes.join(', ') || 'no item'}, no function_call of ${weatherTool.name}`, { expected: 'a function_call item', received: forced.itemTypes }));
        if (!j.has('RESP-009')) j.skip('RESP-009', 'no function_call came back to judge (RESP-010)');
      } else {
        let args: unknown;
        try {
          args = JSON.parse(call.arguments);
        } catch {
          args = undefined;
        }
        j.expect('RESP-009', isRecord(args), () => evidence(forcedEx, `the function_call's arguments ${JSON.stringify(call.arguments)} do not parse as a JSON object`, { expected: 'a JSON object', received: call.arguments }));
        j.pass('RESP-010');
      }
    }
    const noneEx = await createResponse(ctx, WEATHER_QUESTION, { tools: [weatherTool], tool_choice: 'none' });
    if (noneEx.status !== 200 && forced === undefined) {
      if (!j.has('RESP-010')) j.skip('RESP-010', `function tools were refused (RESP-009): tool_choice "none" answered ${describeResponse(noneEx)}`);
    } else {
      const none = answered(j, noneEx, 'tool_choice "none"', 'RESP-010');
      if (none !== undefined && hasOutput(noneEx)) j.expect('RESP-010', none.functionCalls.length === 0, () => evidence(noneEx, `tool_choice "none": the output holds ${none.functionCalls.length} function_call item(s)`, { expected: 'no function_call', received: none.functionCalls.map((c) => c.name) }));
    }
    // The round trip: the call item given back exactly as the server sent it, then its output.
    if (call === undefined) j.skip('RESP-011', 'no function_call came back to answer (RESP-009, RESP-010)');
    else {
      const input = [message('user', WEATHER_QUESTION), call.item, functionCallOutput(call.callId, '{"temperature_c": 21, "sky": "clear"}')];
      answered(j, await createResponse(ctx, input, { tools: [weatherTool] }), 'the function_call given back with its function_call_output', 'RESP-011');
    }
    await refusals(ctx, j, model);
    for (const id of j.ids) if (!j.has(id)) j.pass(id);
  },
};

export const responsesChecks: CheckDef[] = [responsesRequest, ...responsesStreamChecks, ...responsesStateChecks];
