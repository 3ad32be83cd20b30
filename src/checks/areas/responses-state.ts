import type { CheckContext, CheckDef } from '../context/check-types.ts';
import type { Judge } from '../kernel/judge.ts';
import type { HttpExchange } from '../http/check-http.ts';
import { requirementIdRange } from '../context/check-types.ts';
import { at, describeResponse, evidence, isRecord } from '../kernel/evidence.ts';
import { gateOn, probeCapability } from '../requests/capability-probes.ts';
import { checkResponsesExchange, judgeResponsesFindings } from '../wire/responses-findings.ts';
import { FIRST_TURN, PLAIN_INPUT, SECOND_TURN, chainedTurns, createResponse, words } from '../requests/responses-requests.ts';
import { responsePath } from '../../protocols/responses/responses-request.ts';
import { checkResponseBody, compareStored, responseFacts, type ResponseFacts } from '../../protocols/responses/responses-body.ts';
import { capabilityDef, offered } from '../registry/capabilities.ts';

const STATE = requirementIdRange('RESP-STATE', 1, 7);

/** RESP-STATE-005: a 4xx refusing previous_response_id is in the envelope and names it. */
function namesPrevious(j: Judge, ex: HttpExchange, what: string): void {
  const error = at(ex.json, 'error');
  const param = isRecord(error) ? error['param'] : undefined;
  j.expect('RESP-STATE-005', isRecord(error) && param === 'previous_response_id', () => evidence(ex, `${what} answered ${describeResponse(ex)}${isRecord(error) ? ` naming param ${JSON.stringify(param) ?? 'absent'}` : ' without the error envelope'}`, { expected: '{"error": {"param": "previous_response_id"}}', received: ex.json ?? ex.text, pointer: '/error/param' }));
}

/** A response found: 200 with that id. */
const isFound = (ex: HttpExchange, id: string): boolean => ex.status === 200 && at(ex.json, 'id') === id;

async function retrieval(ctx: CheckContext, j: Judge, first: HttpExchange): Promise<void> {
  // Created without store: OpenAI's default (true) keeps it. Compared only with an answer that was itself sound (RESP checks judge it).
  const created = checkResponseBody(first.json);
  const id = created.facts.id as string;
  const got = await ctx.http.get(responsePath(id));
  if (got.status !== 200) j.violated('RESP-STATE-001', evidence(got, `GET of the stored response ${id} answered ${describeResponse(got)}`, { expected: 200, received: got.status }));
  else if (created.findings.length === 0) judgeResponsesFindings(j, got, `GET ${id}`, compareStored(created.facts, got.json));
  // A streamed response, retrieved: its output is what was streamed.
  const streamed = await createResponse(ctx, PLAIN_INPUT, { stream: true });
  if (streamed.status !== 200) return;
  const r = checkResponsesExchange(streamed);
  const sid = r.facts.responseId;
  if (r.findings.length > 0 || sid === undefined || r.facts.final === undefined) return;
  const facts: ResponseFacts = { ...r.facts.final, id: sid, text: r.facts.text, functionCalls: r.facts.functionCalls.map((c) => ({ ...c, id: undefined, item: {} })) };
  const again = await ctx.http.get(responsePath(sid));
  if (again.status !== 200) j.violated('RESP-STATE-001', evidence(again, `GET of the streamed response ${sid} answered ${describeResponse(again)}`, { expected: 200, received: again.status }));
  else judgeResponsesFindings(j, again, `GET ${sid} after streaming it`, compareStored(facts, again.json));
}

async function context(ctx: CheckContext, j: Judge, chained: HttpExchange): Promise<void> {
  // The server's own count of the turn's input, with and without the earlier turn: no model output is judged.
  const alone = await createResponse(ctx, SECOND_TURN);
  const withIt = responseFacts(chained.json).usage?.inputTokens;
  const without = alone.status === 200 ? responseFacts(alone.json).usage?.inputTokens : undefined;
  if (withIt === undefined || without === undefined) {
    j.skip('RESP-STATE-002', 'the server reports no usage.input_tokens (RESP-004): what the chained turn carried cannot be counted');
    return;
  }
  const need = Math.floor(words(FIRST_TURN) / 2);
  j.expect('RESP-STATE-002', withIt - without >= need, () => evidence(chained, `the turn sent with previous_response_id counts ${withIt} input tokens, ${withIt - without} more than the same turn alone (${without}); turn 1 held ${words(FIRST_TURN)} words, so at least ${need} more reach a model that was given them`, { expected: `>= ${without + need}`, received: withIt, pointer: '/usage/input_tokens' }));
}

async function forgetting(ctx: CheckContext, j: Judge, first: HttpExchange): Promise<void> {
  const unstoredEx = await createResponse(ctx, PLAIN_INPUT, { store: false });
  const unstored = at(unstoredEx.json, 'id');
  if (unstoredEx.status !== 200 || typeof unstored !== 'string') j.skip('RESP-STATE-003', `store false answered ${describeResponse(unstoredEx)}: nothing to look for`);
  else {
    const got = await ctx.http.get(responsePath(unstored));
    j.expect('RESP-STATE-003', got.status === 404, () => evidence(got, `GET of a response created with store false answered ${describeResponse(got)}`, { expected: 404, received: got.status }));
  }
  // An id never issued.
  const unknown = `resp_iari${ctx.seed.toString(16)}never0issued`;
  const get = await ctx.http.get(responsePath(unknown));
  j.expect('RESP-STATE-004', get.status === 404 && isRecord(at(get.json, 'error')), () => evidence(get, `GET of an id never issued answered ${describeResponse(get)}`, { expected: '404 with the error envelope', received: get.status }));
  const chained = await createResponse(ctx, SECOND_TURN, { previous_response_id: unknown });
  if (chained.status >= 400 && chained.status < 500) {
    j.pass('RESP-STATE-004');
    namesPrevious(j, chained, 'previous_response_id of an id never issued');
  } else {
    j.violated('RESP-STATE-004', evidence(chained, `previous_response_id of an id never issued answered ${describeResponse(chained)}`, { expected: 'a 4xx', received: chained.status }));
    j.skip('RESP-STATE-005', 'an unknown previous_response_id was not refused (RESP-STATE-004): no refusal to read');
  }
  // DELETE, then the response is gone.
  const doomedEx = await createResponse(ctx, PLAIN_INPUT);
  const doomed = at(doomedEx.json, 'id');
  if (doomedEx.status !== 200 || typeof doomed !== 'string') j.skip('RESP-STATE-006', `the response to delete answered ${describeResponse(doomedEx)}`);
  else {
    const del = await ctx.http.send('DELETE', responsePath(doomed));
    const after = del.status >= 200 && del.status < 300 ? await ctx.http.get(responsePath(doomed)) : undefined;
    j.expect('RESP-STATE-006', after !== undefined && after.status === 404, () => evidence(after ?? del, after === undefined ? `DELETE answered ${describeResponse(del)}` : `GET after DELETE answered ${describeResponse(after)}`, { expected: 'DELETE 2xx, then GET 404', received: after === undefined ? del.status : after.status }));
  }
  // Another account's token sees nothing of this one's.
  const other = ctx.http.secondToken;
  const id = at(first.json, 'id');
  if (other === undefined) j.skip('RESP-STATE-007', 'no second token (the bundled mock gives one; set none for a real server): isolation cannot be tried');
  else if (typeof id === 'string') {
    const got = await ctx.http.get(responsePath(id), { auth: { authorization: `Bearer ${other}` } });
    j.expect('RESP-STATE-007', !isFound(got, id), () => evidence(got, `GET of this account's response ${id} with another account's token answered ${describeResponse(got)}`, { expected: '404', received: got.status }));
  }
}

const responsesState: CheckDef = {
  name: 'responses-state',
  area: 'responses',
  ids: STATE,
  title: 'Stored responses: retrieved as created (and as streamed), previous_response_id carrying the earlier turn (counted by the server), store false keeping nothing, unknown ids refused naming the member, DELETE removing, and one token\'s responses invisible to another; a stateless server refuses previous_response_id clearly',
  async run(ctx, j) {
    const state = capabilityDef(ctx.protocols, 'responses-state');
    // Where POST /v1/responses is not served, no response is stored either: each ID is skipped (or failed under --expect) for its own row.
    const served = await probeCapability(ctx, 'responses');
    if (!offered(served.status)) {
      gateOn(j, 'responses', served, ctx.capabilities.expected, capabilityDef(ctx.protocols, 'responses').member, ['RESP-STATE-005']);
      gateOn(j, 'responses-state', { ...served, detail: `POST /v1/responses is not served (${served.detail})` }, ctx.capabilities.expected, state.member, state.ids);
      return;
    }
    const probe = await probeCapability(ctx, 'responses-state');
    const { first, chained } = await chainedTurns(ctx);
    // A stateless server (llama.cpp, Ollama) is a legal profile when it refuses previous_response_id plainly.
    if (probe.status === 'refused' && chained !== undefined) namesPrevious(j, chained, 'previous_response_id on a server that keeps no state');
    if (!gateOn(j, 'responses-state', probe, ctx.capabilities.expected, state.member, state.ids)) {
      if (!j.has('RESP-STATE-005')) j.skip('RESP-STATE-005', `previous_response_id was not refused (${probe.detail})`);
      return;
    }
    if (first.status !== 200 || chained === undefined || typeof at(first.json, 'id') !== 'string') {
      j.skipRest(`turn 1 answered ${describeResponse(first)} without a response id: the RESP checks judge it`);
      return;
    }
    if (chained.status === 200) await context(ctx, j, chained);
    else j.violated('RESP-STATE-002', evidence(chained, `a turn with previous_response_id of turn 1 answered ${describeResponse(chained)}`, { expected: 200, received: chained.status }));
    await retrieval(ctx, j, first);
    await forgetting(ctx, j, first);
    for (const id of j.ids) if (!j.has(id)) j.pass(id);
  },
};

export const responsesStateChecks: CheckDef[] = [responsesState];
