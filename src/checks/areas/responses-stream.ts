import type { CheckDef } from '../context/check-types.ts';
import type { HttpExchange } from '../http/check-http.ts';
import { requirementIdRange } from '../context/check-types.ts';
import { describeResponse, evidence } from '../kernel/evidence.ts';
import { gate } from '../requests/capability-probes.ts';
import { checkResponsesExchange, judgeResponsesFindings } from '../wire/responses-findings.ts';
import { ANSWER_BOUND, CUT_BOUND, PLAIN_INPUT, PLAIN_METADATA, WEATHER_QUESTION, createResponse, weatherTool } from '../requests/responses-requests.ts';
import type { ResponsesStreamOptions, ResponsesStreamResult } from '../../protocols/responses/responses-stream.ts';

const STREAM = requirementIdRange('RESP-STREAM', 1, 14);

const responsesStream: CheckDef = {
  name: 'responses-stream',
  area: 'responses',
  // The terminal response is a Response too: its items, status, bound and metadata are judged as a body's.
  ids: [...STREAM, 'RESP-003', 'RESP-005', 'RESP-006', 'RESP-012'],
  title: 'A streamed response is a state machine: response.created first, sequence numbers from 0 by 1, every event at an output and content index that was added, every added item and part done, deltas adding up to the done events and the terminal response, one terminal event with usage, only documented event types',
  async run(ctx, j) {
    if (!(await gate(ctx, j, 'responses'))) return;
    const streams: [string, () => Promise<HttpExchange>, ResponsesStreamOptions][] = [
      ['a streamed answer', () => createResponse(ctx, PLAIN_INPUT, { stream: true, metadata: PLAIN_METADATA }), { maxOutputTokens: ANSWER_BOUND, metadata: PLAIN_METADATA }],
      ['a streamed forced function call', () => createResponse(ctx, WEATHER_QUESTION, { stream: true, tools: [weatherTool], tool_choice: 'required' }), { maxOutputTokens: ANSWER_BOUND }],
      [`a streamed answer bounded at ${CUT_BOUND} tokens`, () => createResponse(ctx, 'Write a long story about a lighthouse keeper, in many paragraphs.', { stream: true, max_output_tokens: CUT_BOUND }), { maxOutputTokens: CUT_BOUND }],
    ];
    const results: (ResponsesStreamResult | undefined)[] = [];
    for (const [what, send, options] of streams) {
      const ex = await send();
      // A refused request is the request's matter (RESP-001, RESP-009 ...), judged by the responses check.
      if (ex.status >= 400 && ex.status < 500) {
        results.push(undefined);
        continue;
      }
      const type = ex.headers['content-type'] ?? '';
      if (ex.status !== 200 || !/^text\/event-stream\b/i.test(type)) {
        j.violated('RESP-STREAM-001', evidence(ex, `${what} answered ${describeResponse(ex)} with Content-Type ${JSON.stringify(type)}, not a 200 text/event-stream`, { expected: '200 text/event-stream', received: `${ex.status} ${type}` }));
        results.push(undefined);
        continue;
      }
      const r = checkResponsesExchange(ex, options);
      judgeResponsesFindings(j, ex, what, r.findings);
      results.push(r);
    }
    if (results.every((r) => r === undefined)) {
      j.skipRest('every streamed request was refused: the RESP checks judge why');
      return;
    }
    const [text, , cut] = results;
    const out = cut?.facts.usage?.outputTokens;
    if (!j.has('RESP-005') && out !== CUT_BOUND) j.skip('RESP-005', out === undefined ? 'the bounded stream reported no usage (RESP-STREAM-012): whether it was cut cannot be told' : `the bounded stream ended after ${out} tokens, not at the bound of ${CUT_BOUND}: no cut to judge`);
    if (!j.has('RESP-006') && out === undefined) j.skip('RESP-006', 'the bounded stream reported no usage (RESP-STREAM-012)');
    if (!j.has('RESP-012') && text?.facts.final === undefined) j.skip('RESP-012', 'the streamed answer carried no terminal response to read metadata from (RESP-STREAM-009)');
    for (const id of j.ids) if (!j.has(id)) j.pass(id);
  },
};

export const responsesStreamChecks: CheckDef[] = [responsesStream];
