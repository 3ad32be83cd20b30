import type { CheckDef } from '../context/check-types.ts';
import type { HttpExchange } from '../http/check-http.ts';
import { evidence, at, isInt, isRecord, describeResponse } from '../kernel/evidence.ts';
import { PROMPT, weatherTool } from '../requests/common-requests.ts';
import { effortOrder, effortTurns, gate, offers, probeCapability } from '../requests/capability-probes.ts';
import { streamChunks } from '../../protocols/chat-completions/stream-chunks.ts';
import { CHAT_COMPLETIONS_PATH } from '../../protocols/chat-completions/chat-request.ts';

// Reasoning models (capability reasoning): DeepSeek and vLLM before PR 27752 stream thinking as
// delta.reasoning_content, vLLM after it and Ollama as delta.reasoning, before the answer; usage
// counts it in completion_tokens_details.reasoning_tokens. Judged on the model the probe found.

const CHAT = CHAT_COMPLETIONS_PATH;
const FIELDS = ['reasoning_content', 'reasoning'] as const;

interface ReasoningStream {
  reasoning: string;
  content: string;
  /** Index (in delta order) of the first content or tool-call delta, and of the last reasoning delta. */
  firstAnswer: number;
  lastReasoning: number;
  usage: unknown;
}

/** The reasoning, content and order of choice 0's deltas, and the usage chunk's usage. */
export function readReasoningStream(ex: Pick<HttpExchange, 'chunks'>): ReasoningStream {
  const out: ReasoningStream = { reasoning: '', content: '', firstAnswer: -1, lastReasoning: -1, usage: undefined };
  let k = 0;
  for (const chunk of streamChunks(ex)) {
    const usage = at(chunk, 'usage');
    if (isRecord(usage)) out.usage = usage;
    const d = at(chunk, 'choices', 0, 'delta');
    if (!isRecord(d)) continue;
    k += 1;
    for (const f of FIELDS) {
      if (typeof d[f] === 'string' && d[f] !== '') {
        out.reasoning += d[f];
        out.lastReasoning = k;
      }
    }
    const answered = (typeof d['content'] === 'string' && d['content'] !== '') || Array.isArray(d['tool_calls']);
    if (typeof d['content'] === 'string') out.content += d['content'];
    if (answered && out.firstAnswer < 0) out.firstAnswer = k;
  }
  return out;
}

const stream: CheckDef = {
  name: 'chat-stream-reasoning',
  area: 'chat-stream',
  ids: ['CHAT-STREAM-048', 'CHAT-STREAM-049', 'CHAT-STREAM-050'],
  title: 'a reasoning model streams its reasoning apart from the answer and before it, and counts it within completion_tokens',
  async run(ctx, j) {
    if (!(await gate(ctx, j, 'reasoning'))) return;
    const model = (await probeCapability(ctx, 'reasoning')).model;
    if (model === undefined) {
      j.skipRest('the probe found reasoning but no model to ask (undecided)');
      return;
    }
    const usage = (await offers(ctx, 'stream-usage')) ? { stream_options: { include_usage: true } } : {};
    // Where the server takes reasoning_effort, the stream is asked with it, as clients of reasoning models send it.
    const effort = (await offers(ctx, 'reasoning-effort')) ? { reasoning_effort: 'low' } : {};
    const ex = await ctx.http.post(CHAT, { model, messages: [{ role: 'user', content: PROMPT }], stream: true, ...usage, ...effort });
    if (ex.status !== 200) {
      j.skipRest(`the reasoning stream answered ${ex.status} (the stream checks judge it): ${describeResponse(ex)}`);
      return;
    }
    const r = readReasoningStream(ex);
    const pieces = r.reasoning.split(/(?<=[.;:!?])\s*/).map((p) => p.trim()).filter((p) => p.length >= 12);
    const leaked = /<think>|<\/think>/.test(r.content) || pieces.some((p) => r.content.includes(p));
    j.expect('CHAT-STREAM-048', r.reasoning !== '' && !leaked, () =>
      evidence(ex, r.reasoning === '' ? 'the reasoning model streamed no reasoning' : 'the reasoning text appears in content', { expected: 'content without the reasoning', received: r.content.slice(0, 200) }),
    );
    j.expect('CHAT-STREAM-049', r.firstAnswer < 0 || r.lastReasoning < r.firstAnswer, () =>
      evidence(ex, `a reasoning delta (delta ${r.lastReasoning}) follows the answer (which began at delta ${r.firstAnswer})`, { expected: 'all reasoning before the first content or tool-call delta' }),
    );
    const ct = at(r.usage, 'completion_tokens');
    const rt = at(r.usage, 'completion_tokens_details', 'reasoning_tokens');
    if (r.usage === undefined || rt === undefined || rt === null) {
      j.skip('CHAT-STREAM-050', 'no usage.completion_tokens_details.reasoning_tokens to judge');
      return;
    }
    j.expect('CHAT-STREAM-050', isInt(rt) && isInt(ct) && rt >= 0 && rt <= ct && (r.reasoning === '' || rt > 0), () =>
      evidence(ex, 'reasoning_tokens does not fit within completion_tokens or does not match the reasoning streamed', { expected: `0 < reasoning_tokens <= completion_tokens (${String(ct)})`, received: { reasoning_tokens: rt, completion_tokens: ct } }),
    );
  },
};

const echo: CheckDef = {
  name: 'chat-reasoning-echo',
  area: 'chat-stream',
  ids: ['CHAT-038'],
  title: 'a tool turn whose assistant message gives the reasoning back is accepted',
  async run(ctx, j) {
    if (!(await gate(ctx, j, 'reasoning'))) return;
    const probe = await probeCapability(ctx, 'reasoning');
    const model = probe.model;
    if (model === undefined) {
      j.skip('CHAT-038', 'the probe found no reasoning model to ask');
      return;
    }
    const field = probe.detail.includes('reasoning_content') ? 'reasoning_content' : 'reasoning';
    const ex = await ctx.http.post(CHAT, {
      model,
      messages: [
        { role: 'user', content: 'What is the weather in Zürich?' },
        { role: 'assistant', content: null, [field]: 'The user wants the weather; call the tool.', tool_calls: [{ id: 'call_reasoning_1', type: 'function', function: { name: weatherTool.function.name, arguments: '{"city":"Zürich"}' } }] },
        { role: 'tool', tool_call_id: 'call_reasoning_1', content: '{"temperature_c": 21}' },
      ],
      tools: [weatherTool],
    });
    j.expect('CHAT-038', ex.status === 200, () => evidence(ex, `a tool turn giving ${field} back was refused`, { expected: 200, received: describeResponse(ex) }));
  },
};

const effort: CheckDef = {
  name: 'chat-reasoning-effort',
  area: 'chat-stream',
  ids: ['CHAT-039'],
  title: 'reasoning_effort "low" reasons no more than "high", and both are answered',
  async run(ctx, j) {
    if (!(await gate(ctx, j, 'reasoning-effort'))) return;
    const model = (await probeCapability(ctx, 'reasoning')).model;
    if (model === undefined) {
      j.skip('CHAT-039', 'the probe found no reasoning model to ask');
      return;
    }
    // OpenAI, chat.completions reasoning_effort: "Reducing reasoning effort can result in faster responses and fewer tokens used on reasoning in a response."
    const { low, high } = await effortTurns(ctx, model);
    for (const ex of [low, high]) {
      j.expect('CHAT-039', ex.status === 200, () => evidence(ex, `reasoning_effort "${String(at(ex.sentJson, 'reasoning_effort'))}" was not answered though the other effort was`, { expected: 200, received: describeResponse(ex) }));
    }
    if (low.status !== 200 || high.status !== 200) return;
    const order = effortOrder(low, high);
    if (order === undefined) {
      j.skip('CHAT-039', 'neither answer says how much it reasoned (no reasoning_tokens, no reasoning text)');
      return;
    }
    j.expect('CHAT-039', order.lowAmount <= order.highAmount, () =>
      evidence(high, `reasoning_effort "low" reasoned more than "high" (${order.unit})`, { expected: `low <= high`, received: { low: order.lowAmount, high: order.highAmount } }),
    );
  },
};

export const reasoningChecks: CheckDef[] = [stream, echo, effort];
