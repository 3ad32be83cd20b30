// The bundled mock's side of the toy API: its validation, its wire, and the one fault that breaks TOY-001.
import type { AnswerRenderer, GenerationAsk, MockFault, MockSide, WireEvent } from '../../src/protocols/protocol-mock.ts';

/** The toy's fault: each seq after the first skips one number (breaks TOY-001, nothing else). */
export const toyFaults: readonly MockFault[] = [{ name: 'toy-seq-skips', kind: 'fault', breaks: ['TOY-001'], description: 'Toy stream events skip a number after the first (seq 0, 2, 3, ...).' }];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const renderer: AnswerRenderer = {
  steps: (plan) => (plan.choices[0]?.pieces.length ?? 0) + 1,
  whole: (plan) => JSON.stringify({ text: plan.choices[0]?.content ?? '', units: plan.completionTokens, input_units: plan.promptTokens }),
  stream(plan, _ask, ctx, times) {
    const pieces = plan.choices[0]?.pieces ?? [];
    const skip = ctx.faults.has('toy-seq-skips');
    const events: WireEvent[] = pieces.map((p, k) => ({ atMs: times[k] ?? 0, data: `data: ${JSON.stringify({ seq: skip && k > 0 ? k + 1 : k, text: p.text })}\n\n`, tokens: p.tokens, content: p.tokens > 0, choice: 0, text: p.text }));
    events.push({ atMs: times[pieces.length] ?? times[pieces.length - 1] ?? 0, data: `data: ${JSON.stringify({ done: true, units: pieces.length, input_units: plan.promptTokens })}\n\n`, tokens: 0, content: false });
    return events;
  },
  failure: (at, errorBody) => (errorBody === null ? [] : [{ atMs: at, data: `data: ${errorBody}\n\n`, tokens: 0, content: false }]),
};

/** Validates {model, prompt, max_units?, stream?}, naming the member at fault. */
function parse(body: unknown): ReturnType<MockSide<GenerationAsk>['parse']> {
  if (!isRecord(body)) return { ok: false, param: null, message: 'The request body must be a JSON object.' };
  const { model, prompt, max_units: max, stream } = body;
  if (typeof model !== 'string' || model === '') return { ok: false, param: 'model', message: "'model' must be a non-empty string." };
  if (typeof prompt !== 'string') return { ok: false, param: 'prompt', message: "'prompt' must be a string." };
  if (max !== undefined && !(Number.isInteger(max) && (max as number) >= 1)) return { ok: false, param: 'max_units', message: "'max_units' must be an integer >= 1." };
  if (stream !== undefined && typeof stream !== 'boolean') return { ok: false, param: 'stream', message: "'stream' must be a boolean." };
  const ask: GenerationAsk = {
    model,
    messages: [{ role: 'user', text: prompt, toolCalls: [], toolCallId: null }],
    temperature: null,
    n: 1,
    stop: [],
    maxTokens: (max as number | undefined) ?? null,
    stream: stream === true,
    includeUsage: true,
    tools: [],
    toolChoice: { mode: 'none' },
    parallelToolCalls: false,
    seed: null,
    format: { type: 'text' },
    ignoreEos: false,
    minTokens: null,
    raw: body,
  };
  return { ok: true, ask, model, stream: stream === true };
}

export const toyMock: MockSide<GenerationAsk> = { parse, answer: { kind: 'generated', generation: (ask) => ask, renderer }, faults: toyFaults };
