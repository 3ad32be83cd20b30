import type { CheckContext, CheckDef } from '../context/check-types.ts';
import type { HttpExchange } from '../http/check-http.ts';
import { evidence, isRecord, at, describeResponse } from '../kernel/evidence.ts';
import { chatBody, errorMemberIs, modelUnderTest } from '../requests/common-requests.ts';
import { checkExchange } from '../wire/stream-findings.ts';
import { NOT_STRICT_SCHEMA, WEATHER_PROMPT, WEATHER_SCHEMA, truncatedByLength, schemaProblem } from '../wire/structured-output.ts';
import { gate } from '../requests/capability-probes.ts';
import { CHAT_COMPLETIONS_PATH } from '../../protocols/chat-completions/chat-request.ts';

export { WEATHER_SCHEMA };

const PROMPT = WEATHER_PROMPT;

function jsonSchemaBody(model: string, ctx: CheckContext, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return chatBody(ctx, model, { messages: [{ role: 'user', content: PROMPT }], response_format: { type: 'json_schema', json_schema: { name: 'weather', schema: WEATHER_SCHEMA, strict: true } }, ...extra });
}

/** The content of the first choice of a non-streamed completion, or why there is none. */
function messageContent(ex: HttpExchange): string | { missing: string } {
  const content = at(ex.json, 'choices', 0, 'message', 'content');
  return typeof content === 'string' ? content : { missing: `choices[0].message.content is ${JSON.stringify(content)}` };
}

const jsonObject: CheckDef = {
  name: 'chat-json-object',
  area: 'chat',
  ids: ['CHAT-034'],
  title: 'response_format json_object answers content that parses as one JSON object',
  async run(ctx, j) {
    if (!(await gate(ctx, j, 'json-object'))) return;
    // Compat (OpenAI JSON mode): "the model will only generate strings that parse into valid JSON objects".
    const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, await modelUnderTest(ctx), { messages: [{ role: 'user', content: PROMPT }], response_format: { type: 'json_object' } }));
    const content = ex.status === 200 ? messageContent(ex) : { missing: `the request answered ${ex.status}` };
    if (typeof content !== 'string') {
      if (ex.status === 200) j.skip('CHAT-034', `the completion carries no text to judge (${content.missing}; CHAT-001/008/011 judge the completion)`);
      else j.violated('CHAT-034', evidence(ex, `JSON mode gave no content: ${content.missing}`, { expected: '200 with a JSON object as content', received: describeResponse(ex) }));
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(content);
    } catch {
      value = undefined;
    }
    const cut = isRecord(value) ? undefined : truncatedByLength(content, at(ex.json, 'choices', 0, 'finish_reason'));
    if (cut !== undefined) {
      j.skip('CHAT-034', cut);
      return;
    }
    j.expect('CHAT-034', isRecord(value), () => evidence(ex, 'JSON mode content is not a JSON object', { expected: 'a JSON object', received: content.slice(0, 200), pointer: '/choices/0/message/content' }));
  },
};

const jsonSchema: CheckDef = {
  name: 'chat-json-schema',
  area: 'chat',
  ids: ['CHAT-035', 'CHAT-036'],
  title: 'response_format json_schema (strict) answers JSON valid against the schema, streamed and not',
  async run(ctx, j) {
    if (!(await gate(ctx, j, 'json-schema'))) return;
    const model = await modelUnderTest(ctx);
    // Compat (OpenAI Structured Outputs): with strict:true the output "will exactly match the supplied schema".
    const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, jsonSchemaBody(model, ctx));
    const content = ex.status === 200 ? messageContent(ex) : { missing: `the request answered ${ex.status}` };
    if (typeof content !== 'string') {
      if (ex.status === 200) j.skip('CHAT-035', `the completion carries no text to judge (${content.missing}; CHAT-001/008/011 judge the completion)`);
      else j.violated('CHAT-035', evidence(ex, `structured output gave no content: ${content.missing}`, { expected: '200 with JSON content', received: describeResponse(ex) }));
    } else {
      const problem = schemaProblem(content);
      const cut = problem === undefined ? undefined : truncatedByLength(content, at(ex.json, 'choices', 0, 'finish_reason'));
      if (cut !== undefined) j.skip('CHAT-035', cut);
      else j.expect('CHAT-035', problem === undefined, () => evidence(ex, problem?.message ?? '', { received: problem?.received, pointer: '/choices/0/message/content' }));
    }
    const streamed = await ctx.http.post(CHAT_COMPLETIONS_PATH, jsonSchemaBody(model, ctx, { stream: true }));
    if (streamed.status !== 200) {
      j.violated('CHAT-036', evidence(streamed, `the streamed structured output answered ${streamed.status}`, { expected: 200, received: describeResponse(streamed) }));
      return;
    }
    const choice = checkExchange(streamed).assembled.choices[0];
    const text = choice?.content ?? null;
    if (text === null) {
      j.violated('CHAT-036', evidence(streamed, 'the streamed structured output carried no content', { expected: 'JSON content in the deltas' }));
      return;
    }
    const problem = schemaProblem(text);
    const cut = problem === undefined ? undefined : truncatedByLength(text, choice?.finishReason);
    if (cut !== undefined) {
      j.skip('CHAT-036', cut);
      return;
    }
    j.expect('CHAT-036', problem === undefined, () => evidence(streamed, `streamed: ${problem?.message ?? ''}`, { received: problem?.received }));
  },
};

const strictRefusal: CheckDef = {
  name: 'chat-json-schema-strict-refusal',
  area: 'chat',
  ids: ['CHAT-037'],
  title: 'a strict json_schema outside the OpenAI strict subset answers 400 invalid_request_error with param response_format',
  async run(ctx, j) {
    if (!(await gate(ctx, j, 'json-schema'))) return;
    const body = chatBody(ctx, await modelUnderTest(ctx), { messages: [{ role: 'user', content: PROMPT }], response_format: { type: 'json_schema', json_schema: { name: 'loose', schema: NOT_STRICT_SCHEMA, strict: true } } });
    const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, body);
    // Compat (OpenAI Structured Outputs): "Invalid schema for response_format 'loose': In context=('properties', 'details'), 'additionalProperties' is required to be supplied and to be false."
    j.expect('CHAT-037', ex.status === 400 && errorMemberIs(ex, 'type', ['invalid_request_error']) && errorMemberIs(ex, 'param', ['response_format']), () =>
      evidence(ex, 'a strict schema outside the strict subset was not refused like OpenAI does', { expected: { status: 400, type: 'invalid_request_error', param: 'response_format' }, received: describeResponse(ex) }),
    );
  },
};

export const chatFormatChecks: CheckDef[] = [jsonObject, jsonSchema, strictRefusal];
