import type { CheckContext, CheckDef } from '../context/check-types.ts';
import { requirementIdRange } from '../context/check-types.ts';
import type { HttpExchange } from '../http/check-http.ts';
import { evidence, at, isInt, isRecord, describeResponse } from '../kernel/evidence.ts';
import { basicCompletion, chatBody, errorMemberIs, modelUnderTest, PROMPT } from '../requests/common-requests.ts';
import { sdkCreate } from '../clients/sdk-ops.ts';
import { prepareClientProcess } from '../clients/client-process.ts';
import { bound, gate, probeCapability } from '../requests/capability-probes.ts';
import { capabilityNamesOf } from '../registry/capabilities.ts';
import { errorMember } from '../requests/common-requests.ts';
import { shorten } from '../kernel/shorten.ts';
import { CHAT_COMPLETIONS_PATH } from '../../protocols/chat-completions/chat-request.ts';

const EXTENSION_PARAMS = ['top_p', 'n', 'stop', 'max_tokens', 'max_completion_tokens', 'user', 'seed', 'presence_penalty', 'frequency_penalty', 'response_format'];
const FINISH_REASONS = ['stop', 'length', 'tool_calls', 'content_filter', 'function_call'];
const DAY = 86_400;

const basicShape: CheckDef = {
  name: 'chat-basic-shape',
  area: 'chat',
  ids: [...requirementIdRange('CHAT', 1, 17), 'CHAT-033'],
  title: 'a minimal request answers a chat.completion with id, created, model, indexed assistant choices, finish_reason and consistent usage',
  async run(ctx, j) {
    const ex = await basicCompletion(ctx);
    const body = ex.json;
    if (!j.expect('CHAT-001', ex.status === 200 && isRecord(body), () => evidence(ex, 'a minimal chat request did not answer 200 with a JSON object', { expected: 200, received: describeResponse(ex) }))) {
      j.skipRest('no completion to inspect');
      return;
    }
    // Spec, Chat completion: "id | string | completion identifier".
    const id = at(body, 'id');
    j.expect('CHAT-002', typeof id === 'string' && id.length > 0, () => evidence(ex, 'id is not a non-empty string', { received: id, pointer: '/id' }));
    if (typeof id === 'string' && id.startsWith('chatcmpl-')) j.pass('CHAT-003');
    else if (typeof id !== 'string' || id === '') j.skip('CHAT-003', 'no id (CHAT-002)');
    else j.informational('CHAT-003', `id ${JSON.stringify(id)} does not start with chatcmpl-`);
    // Spec, Chat completion: "object | string | the constant chat.completion".
    j.expect('CHAT-004', at(body, 'object') === 'chat.completion', () => evidence(ex, 'object is not "chat.completion"', { expected: 'chat.completion', received: at(body, 'object'), pointer: '/object' }));
    // Spec, Chat completion: "created | integer | Unix time in seconds".
    const created = at(body, 'created');
    j.expect('CHAT-005', isInt(created) && created < 1e10, () => evidence(ex, 'created is not an integer number of seconds', { expected: 'integer < 10^10', received: created, pointer: '/created' }));
    const now = ctx.now() / 1000;
    if (isInt(created) && created < 1e10) {
      j.expect('CHAT-006', Math.abs(created - now) <= DAY, () => evidence(ex, 'created is not within a day of now', { expected: Math.round(now), received: created, pointer: '/created' }));
    } else j.skip('CHAT-006', 'created is not integer seconds (CHAT-005)');
    const model = at(body, 'model');
    j.expect('CHAT-007', typeof model === 'string' && model.length > 0, () => evidence(ex, 'model is not a non-empty string', { received: model, pointer: '/model' }));
    const choices = at(body, 'choices');
    if (!j.expect('CHAT-008', Array.isArray(choices) && choices.length > 0, () => evidence(ex, 'choices is not a non-empty array', { received: choices, pointer: '/choices' }))) {
      for (const cid of ['CHAT-009', 'CHAT-010', 'CHAT-011', 'CHAT-012', 'CHAT-013', 'CHAT-014', 'CHAT-033']) j.skip(cid, 'no choices to inspect');
    } else {
      const list = choices as unknown[];
      const indexes = list.map((c) => at(c, 'index'));
      j.expect('CHAT-009', indexes.every(isInt) && [...indexes].sort().every((v, i) => v === i), () =>
        evidence(ex, 'choices[].index is not 0..n-1', { expected: list.map((_, i) => i), received: indexes, pointer: '/choices' }),
      );
      list.forEach((c, i) => {
        const msg = at(c, 'message');
        j.expect('CHAT-010', isRecord(msg) && msg['role'] === 'assistant', () =>
          evidence(ex, `choices[${i}].message.role is not "assistant"`, { expected: 'assistant', received: at(msg, 'role'), pointer: `/choices/${i}/message/role` }),
        );
        const hasContent = isRecord(msg) && 'content' in msg;
        const content = at(msg, 'content');
        const tools = at(msg, 'tool_calls');
        j.expect('CHAT-011', hasContent && (typeof content === 'string' || (content === null && Array.isArray(tools))), () =>
          evidence(ex, `choices[${i}].message.content is missing, or null without tool_calls`, { received: hasContent ? content : undefined, pointer: `/choices/${i}/message/content` }),
        );
        const refusal = at(msg, 'refusal');
        j.expect('CHAT-012', isRecord(msg) && 'refusal' in msg && (refusal === null || typeof refusal === 'string'), () =>
          evidence(ex, `choices[${i}].message.refusal is missing`, { expected: 'string or null', received: refusal, pointer: `/choices/${i}/message/refusal` }),
        );
        // Spec, Chat completion: "choices[].finish_reason | string" (MUST); which strings: compat enum, CHAT-033 (clients map
        // an unknown one to "other" or pass it through).
        const fr = at(c, 'finish_reason');
        if (j.expect('CHAT-013', typeof fr === 'string', () => evidence(ex, `choices[${i}].finish_reason is not a string`, { expected: 'a string', received: fr, pointer: `/choices/${i}/finish_reason` }))) {
          j.expect('CHAT-033', FINISH_REASONS.includes(fr as string), () =>
            evidence(ex, `choices[${i}].finish_reason is not a known value`, { expected: FINISH_REASONS, received: fr, pointer: `/choices/${i}/finish_reason` }),
          );
        } else if (!j.has('CHAT-033')) j.skip('CHAT-033', 'finish_reason is not a string (CHAT-013)');
        j.expect('CHAT-014', isRecord(c) && 'logprobs' in c, () => evidence(ex, `choices[${i}].logprobs is missing`, { expected: 'null', pointer: `/choices/${i}/logprobs` }));
      });
    }
    // Spec, Chat completion: "usage.total_tokens | integer | sum of the two above".
    const u = at(body, 'usage');
    const p = at(u, 'prompt_tokens');
    const c = at(u, 'completion_tokens');
    const t = at(u, 'total_tokens');
    const counts = [p, c, t].every((v) => isInt(v) && v >= 0);
    j.expect('CHAT-015', isRecord(u) && counts, () => evidence(ex, 'usage does not have three integer counts', { received: u, pointer: '/usage' }));
    j.expect('CHAT-016', counts && t === (p as number) + (c as number), () =>
      evidence(ex, 'usage.total_tokens is not prompt_tokens + completion_tokens', { expected: counts ? (p as number) + (c as number) : 'a sum', received: t, pointer: '/usage/total_tokens' }),
    );
    j.expect('CHAT-017', isInt(p) && p > 0, () => evidence(ex, 'usage.prompt_tokens is 0 for a non-empty prompt', { expected: '> 0', received: p, pointer: '/usage/prompt_tokens' }));
  },
};

async function expectOk(ctx: CheckContext, body: unknown): Promise<HttpExchange> {
  return ctx.http.post(CHAT_COMPLETIONS_PATH, body);
}

const roles: CheckDef = {
  name: 'chat-roles',
  area: 'chat',
  ids: ['CHAT-018'],
  title: 'a conversation with system, user, assistant and tool messages is accepted',
  async run(ctx, j) {
    const model = await modelUnderTest(ctx);
    // Spec, Chat message: "role | string | values used: system, user, assistant, tool".
    const ex = await expectOk(ctx, {
      model,
      ...(await bound(ctx, 16)),
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'What time is it in UTC?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_roles_1', type: 'function', function: { name: 'get_time', arguments: '{"zone":"UTC"}' } }] },
        { role: 'tool', tool_call_id: 'call_roles_1', content: '12:00' },
        { role: 'assistant', content: 'It is noon.' },
        { role: 'user', content: PROMPT },
      ],
      tools: [{ type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } } } } }],
    });
    j.expect('CHAT-018', ex.status === 200, () => evidence(ex, 'a conversation using all four roles was refused', { expected: 200, received: describeResponse(ex) }));
  },
};

const params: CheckDef = {
  name: 'chat-params',
  area: 'chat',
  ids: ['CHAT-019'],
  title: 'documented OpenAI parameters with valid values are accepted',
  async run(ctx, j) {
    const model = await modelUnderTest(ctx);
    const ex = await expectOk(
      ctx,
      chatBody(ctx, model, {
        temperature: 0.5,
        top_p: 0.9,
        n: 1,
        stop: ['\n\n'],
        max_tokens: 32,
        max_completion_tokens: 32,
        user: 'iari-conformance',
        seed: ctx.seed,
        presence_penalty: 0,
        frequency_penalty: 0,
        response_format: { type: 'text' },
      }),
    );
    // Spec, chat completions: "Other fields: not shown". These members are beyond the seed's
    // table: a 400 that names one is a server without that capability (CHAT-020), not a fault.
    const param = errorMember(ex, 'param')?.value;
    const message = at(ex.json, 'error', 'message');
    const unrecognized = typeof message === 'string' ? /Unrecognized request argument supplied: ([A-Za-z_]+)/.exec(message)?.[1] : undefined;
    const named = EXTENSION_PARAMS.find((p) => param === p || unrecognized === p);
    if (ex.status === 400 && named !== undefined) {
      j.skip('CHAT-019', `the server refuses ${named}, a member beyond the seed's table (see the capability table)`);
      for (const cap of capabilityNamesOf(ctx.protocols)) await probeCapability(ctx, cap);
      return;
    }
    j.expect('CHAT-019', ex.status === 200, () => evidence(ex, 'valid documented parameters were refused', { expected: 200, received: describeResponse(ex) }));
    // The capability table answers "which features beyond the seed does this server offer?" for all of them.
    for (const cap of capabilityNamesOf(ctx.protocols)) await probeCapability(ctx, cap);
  },
};

const unknownMember: CheckDef = {
  name: 'chat-unknown-member',
  area: 'chat',
  ids: ['CHAT-020'],
  title: 'an unknown top-level request member is ignored or refused with 400',
  async run(ctx, j) {
    const ex = await expectOk(ctx, chatBody(ctx, await modelUnderTest(ctx), { ...(await bound(ctx, 8)), x_iari_unknown_member: { nested: true } }));
    // DECISIONS.md D-HTTP-17: ignored (vLLM, llama.cpp) or refused with 400 (OpenAI: "Unrecognized request argument supplied").
    j.expect('CHAT-020', ex.status === 200 || ex.status === 400, () =>
      evidence(ex, 'an extra unknown member was neither ignored nor refused with 400', { expected: '200 or 400', received: describeResponse(ex) }),
    );
  },
};

const missingFields: CheckDef = {
  name: 'chat-missing-fields',
  area: 'chat',
  ids: ['CHAT-021', 'CHAT-022', 'CHAT-023', 'CHAT-024'],
  title: 'missing model, missing or empty messages and an unknown role answer 400 naming the field in param',
  async run(ctx, j) {
    const model = await modelUnderTest(ctx);
    const cases = [
      { id: 'CHAT-021', body: { messages: [{ role: 'user', content: PROMPT }] }, param: ['model'] },
      { id: 'CHAT-022', body: { model }, param: ['messages'] },
      { id: 'CHAT-022', body: { model, messages: [] }, param: ['messages'] },
      { id: 'CHAT-023', body: { model, messages: [{ role: 'wizard', content: PROMPT }] }, param: ['messages[0].role', 'messages.0.role', 'messages.[0].role'] },
    ];
    for (const c of cases) {
      const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, c.body);
      j.expect(c.id, ex.status === 400, () => evidence(ex, `${shorten(JSON.stringify(c.body), 80)} was not refused with 400`, { expected: 400, received: describeResponse(ex) }));
      if (ex.status !== 400) continue;
      j.expect('CHAT-024', errorMemberIs(ex, 'type', ['invalid_request_error']) && errorMemberIs(ex, 'param', c.param), () =>
        evidence(ex, 'the 400 does not name the offending field', { expected: { type: 'invalid_request_error', param: c.param[0] }, received: describeResponse(ex), pointer: '/error/param' }),
      );
    }
  },
};

const temperature: CheckDef = {
  name: 'chat-temperature-range',
  area: 'chat',
  ids: ['CHAT-025'],
  title: 'temperature outside 0..2 answers 400 with param temperature',
  async run(ctx, j) {
    const model = await modelUnderTest(ctx);
    for (const t of [2.5, -1]) {
      const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, model, { temperature: t }));
      j.expect('CHAT-025', ex.status === 400 && errorMemberIs(ex, 'param', ['temperature']), () =>
        evidence(ex, `temperature ${t} was not refused naming temperature`, { expected: { status: 400, param: 'temperature' }, received: describeResponse(ex) }),
      );
    }
  },
};

const toolMessageWithoutId: CheckDef = {
  name: 'chat-tool-message-id',
  area: 'chat',
  ids: ['CHAT-027'],
  title: 'a tool message without tool_call_id answers 400',
  async run(ctx, j) {
    const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, {
      model: await modelUnderTest(ctx),
      messages: [
        { role: 'user', content: PROMPT },
        { role: 'tool', content: '42' },
      ],
    });
    j.expect('CHAT-027', ex.status === 400, () => evidence(ex, 'a tool message without tool_call_id was accepted', { expected: 400, received: describeResponse(ex) }));
  },
};

const streamOptionsWithoutStream: CheckDef = {
  name: 'chat-stream-options-without-stream',
  area: 'chat',
  ids: ['CHAT-028'],
  title: 'stream_options without stream true answers 400 naming stream_options',
  async run(ctx, j) {
    if (!(await gate(ctx, j, 'stream-usage'))) return;
    const model = await modelUnderTest(ctx);
    for (const extra of [{ stream: false }, {}]) {
      const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, model, { ...extra, stream_options: { include_usage: true } }));
      j.expect('CHAT-028', ex.status === 400 && errorMemberIs(ex, 'param', ['stream_options']), () =>
        evidence(ex, 'stream_options without stream was not refused naming stream_options', { expected: { status: 400, param: 'stream_options' }, received: describeResponse(ex) }),
      );
    }
  },
};

const nChoices: CheckDef = {
  name: 'chat-n-choices',
  area: 'chat',
  ids: ['CHAT-029'],
  title: 'n=3 answers three choices indexed 0, 1, 2',
  async run(ctx, j) {
    if (!(await gate(ctx, j, 'n'))) return;
    const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, await modelUnderTest(ctx), { n: 3 }));
    // The indexes themselves are CHAT-009's; this judges that n choices come back.
    const choices = at(ex.json, 'choices');
    j.expect('CHAT-029', ex.status === 200 && Array.isArray(choices) && choices.length === 3, () =>
      evidence(ex, 'n=3 did not give three choices', { expected: 3, received: Array.isArray(choices) ? choices.length : describeResponse(ex) }),
    );
  },
};

const maxTokens: CheckDef = {
  name: 'chat-max-tokens',
  area: 'chat',
  ids: ['CHAT-030'],
  title: 'max_completion_tokens 1 bounds the completion and cut text finishes with length',
  async run(ctx, j) {
    if (!(await gate(ctx, j, 'max-completion-tokens'))) return;
    const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, await modelUnderTest(ctx), { max_completion_tokens: 1 }));
    const ct = at(ex.json, 'usage', 'completion_tokens');
    const fr = at(ex.json, 'choices', 0, 'finish_reason');
    // Whether text was cut cannot be told from outside, so the bound is judged; the finish_reason's
    // value is CHAT-013's (and TOOLS-008's) finding.
    j.expect('CHAT-030', ex.status === 200 && isInt(ct) && ct <= 1, () =>
      evidence(ex, 'max_completion_tokens 1 was not honoured', { expected: { completion_tokens: '<= 1', finish_reason: 'length' }, received: { status: ex.status, completion_tokens: ct, finish_reason: fr } }),
    );
  },
};

const nonJson: CheckDef = {
  name: 'chat-non-json-body',
  area: 'chat',
  ids: ['CHAT-032'],
  title: 'a syntactically invalid JSON body answers 400',
  async run(ctx, j) {
    const ex = await ctx.http.send('POST', CHAT_COMPLETIONS_PATH, { raw: { body: '{"model": "x", "messages": [', contentType: 'application/json' } });
    j.expect('CHAT-032', ex.status === 400, () => evidence(ex, 'invalid JSON was not refused with 400', { expected: 400, received: describeResponse(ex) }));
  },
};

export const chatSdkCheck: CheckDef = {
  name: 'chat-openai-sdk',
  area: 'chat',
  ids: ['CHAT-031'],
  title: 'the official openai SDK parses a completion with only baseURL set',
  // openai-node runs in iari's client process (sdk-ops.ts), started with the run.
  prepare: prepareClientProcess,
  run: sdkCreate,
};

export const chatChecks: CheckDef[] = [basicShape, roles, params, unknownMember, missingFields, temperature, toolMessageWithoutId, streamOptionsWithoutStream, nChoices, maxTokens, chatSdkCheck, nonJson];
