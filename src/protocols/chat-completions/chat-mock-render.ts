import type { AnswerPlan as CompletionPlan, AnswerRenderer, PlannedChoice as ChoicePlan, RenderContext, WireEvent as StreamEvent } from '../protocol-mock.ts';

// The bundled mock's chat completions on the wire: a generated answer serialised as a
// ChatCompletion or its chunk stream. The hot path concatenates a per-request prefix with cached,
// pre-serialised per-plan tails; when any fault is active a slower object path applies mutations.

type StreamWire = ReturnType<NonNullable<AnswerRenderer['wire']>>;

type Json = Record<string, unknown>;
type ChunkKind = 'role' | 'content' | 'tool-head' | 'tool-args' | 'finish';

interface ChunkSpec {
  kind: ChunkKind;
  text?: string;
  /** Tool-call index within the choice (tool-head / tool-args). */
  call?: number;
  choice: number;
  step: number;
  tokens: number;
  choiceObj: Json;
}

interface StreamTemplate {
  specs: ChunkSpec[];
  /** `JSON.stringify({choices:[choiceObj], usage?: null}).slice(1)` per spec. */
  tails: string[];
  usageTail: string;
  steps: number;
  /** UTF-8 of each tail and of the usage tail, with the event's closing blank line (made on first use). */
  tailBytes?: Buffer[];
  usageBytes?: Buffer;
}

const DONE_BYTES = Buffer.from('data: [DONE]\n\n');

function usageOf(plan: CompletionPlan, faults: ReadonlySet<string>): Json {
  const total = plan.promptTokens + plan.completionTokens + (faults.has('usage-total-mismatch') ? 1 : 0);
  const usage: Json = { prompt_tokens: plan.promptTokens, completion_tokens: plan.completionTokens, total_tokens: total };
  // OpenAI usage: prompt_tokens_details.cached_tokens, the prompt tokens served from the prompt cache.
  if (plan.cachedTokens !== undefined) usage['prompt_tokens_details'] = { cached_tokens: plan.cachedTokens };
  return usage;
}

function choiceSpecs(c: ChoicePlan): ChunkSpec[] {
  const specs: ChunkSpec[] = [];
  const i = c.index;
  const choice = (delta: Json, finish: string | null): Json => ({ index: i, delta, logprobs: null, finish_reason: finish });
  if (c.toolCalls.length === 0) {
    // Compat, example stream: first chunk `delta:{role:"assistant", content:""}`.
    specs.push({ kind: 'role', choice: i, step: 0, tokens: 0, choiceObj: choice({ role: 'assistant', content: '' }, null) });
    c.pieces.forEach((p, k) => specs.push({ kind: 'content', text: p.text, choice: i, step: k, tokens: p.tokens, choiceObj: choice({ content: p.text }, null) }));
  } else {
    specs.push({ kind: 'role', choice: i, step: 0, tokens: 0, choiceObj: choice({ role: 'assistant', content: null }, null) });
    let step = 0;
    c.toolCalls.forEach((t, call) => {
      // Compat: tool-call deltas carry index/id/type/name first, then argument fragments.
      specs.push({
        kind: 'tool-head',
        call,
        choice: i,
        step,
        tokens: t.nameTokens,
        choiceObj: choice({ tool_calls: [{ index: call, id: t.id, type: 'function', function: { name: t.name, arguments: '' } }] }, null),
      });
      for (const p of t.argPieces) {
        step++;
        specs.push({ kind: 'tool-args', call, text: p.text, choice: i, step, tokens: p.tokens, choiceObj: choice({ tool_calls: [{ index: call, function: { arguments: p.text } }] }, null) });
      }
      step++;
    });
  }
  const lastStep = specs.reduce((m, s) => Math.max(m, s.step), 0);
  // Compat: last chunk `delta:{}`, `finish_reason` set.
  specs.push({ kind: 'finish', choice: i, step: lastStep, tokens: 0, choiceObj: choice({}, c.finishReason) });
  return specs;
}

const kindOrder: Record<ChunkKind, number> = { role: 0, 'tool-head': 1, content: 2, 'tool-args': 2, finish: 3 };

function template(plan: CompletionPlan, includeUsage: boolean): StreamTemplate {
  const key = (includeUsage ? 'stream+usage' : 'stream') + (plan.cachedTokens === undefined ? '' : `:${plan.cachedTokens}`);
  const cached = plan.streamCache.get(key) as StreamTemplate | undefined;
  if (cached !== undefined) return cached;
  const specs = plan.choices.flatMap(choiceSpecs);
  specs.sort((a, b) => a.step - b.step || a.choice - b.choice || kindOrder[a.kind] - kindOrder[b.kind]);
  const tails = specs.map((s) => JSON.stringify(includeUsage ? { choices: [s.choiceObj], usage: null } : { choices: [s.choiceObj] }).slice(1));
  const usageTail = JSON.stringify({ choices: [], usage: usageOf(plan, new Set()) }).slice(1);
  const steps = specs.reduce((m, s) => Math.max(m, s.step), 0) + 1;
  const made: StreamTemplate = { specs, tails, usageTail, steps };
  plan.streamCache.set(key, made);
  return made;
}

export function streamStepCount(plan: CompletionPlan, includeUsage: boolean): number {
  return template(plan, includeUsage).steps;
}

function prefixOf(ctx: RenderContext, object: string): string {
  return `{"id":${JSON.stringify(ctx.id)},"object":"${object}","created":${ctx.created},"model":${JSON.stringify(ctx.model)},`;
}

/**
 * Spec, Streamed chunk: "Each server-sent event carries a JSON object with a partial delta ...
 * The final event is the literal string [DONE], not JSON."
 * `stepTimes[s]` is the intended time (ms from the stream start) of step s.
 */
export function renderStream(plan: CompletionPlan, includeUsage: boolean, ctx: RenderContext, stepTimes: readonly number[]): StreamEvent[] {
  const t = template(plan, includeUsage);
  const lastTime = stepTimes[t.steps - 1] ?? 0;
  if (ctx.faults.size === 0) {
    const prefix = `data: ${prefixOf(ctx, 'chat.completion.chunk')}`;
    const events: StreamEvent[] = new Array(t.specs.length + (includeUsage ? 2 : 1));
    for (let k = 0; k < t.specs.length; k++) {
      const s = t.specs[k] as ChunkSpec;
      const e: StreamEvent = { atMs: stepTimes[s.step] ?? lastTime, data: `${prefix}${t.tails[k]}\n\n`, tokens: s.tokens, content: s.tokens > 0, choice: s.choice };
      if (s.text !== undefined) e.text = s.text;
      if (s.call !== undefined) e.call = s.call;
      events[k] = e;
    }
    let k = t.specs.length;
    // Compat: "an additional chunk will be streamed before the data: [DONE] message ... choices ... empty array".
    if (includeUsage) events[k++] = { atMs: lastTime, data: `${prefix}${t.usageTail}\n\n`, tokens: 0, content: false };
    events[k] = { atMs: lastTime, data: 'data: [DONE]\n\n', tokens: 0, content: false };
    return events;
  }
  return renderStreamWithFaults(plan, includeUsage, ctx, stepTimes, t);
}

/**
 * The wire bytes of the events renderStream made without faults: the per-request prefix is
 * encoded once and the per-plan tails were encoded once per plan (long or non-Latin-1 texts are
 * costly to encode on every request).
 */
export function streamWire(plan: CompletionPlan, includeUsage: boolean, ctx: RenderContext, events: readonly StreamEvent[]): StreamWire {
  const t = template(plan, includeUsage);
  const tailBytes = (t.tailBytes ??= t.tails.map((tail) => Buffer.from(`${tail}\n\n`)));
  const usageBytes = (t.usageBytes ??= Buffer.from(`${t.usageTail}\n\n`));
  const prefix = Buffer.from(`data: ${prefixOf(ctx, 'chat.completion.chunk')}`);
  const n = t.specs.length;
  return {
    events,
    bytes(from: number, to: number): Uint8Array {
      const parts: Buffer[] = [];
      for (let k = from; k < to; k++) {
        if (k < n) parts.push(prefix, tailBytes[k] as Buffer);
        else if (includeUsage && k === n) parts.push(prefix, usageBytes);
        else parts.push(DONE_BYTES);
      }
      return Buffer.concat(parts);
    },
  };
}

function renderStreamWithFaults(plan: CompletionPlan, includeUsage: boolean, ctx: RenderContext, stepTimes: readonly number[], t: StreamTemplate): StreamEvent[] {
  const f = ctx.faults;
  const lastTime = stepTimes[t.steps - 1] ?? 0;
  const created = f.has('created-milliseconds') ? ctx.created * 1000 : f.has('completion-created-stale') ? ctx.created - 2 * 86_400 : ctx.created;
  const object = f.has('chunk-object-wrong') ? 'chat.completions.chunk' : 'chat.completion.chunk';
  let specs = t.specs.map((s) => ({ ...s, choiceObj: structuredClone(s.choiceObj) }));
  if (f.has('stream-truncated')) specs = specs.filter((s) => s.kind !== 'finish');
  if (f.has('finish-chunk-with-content')) {
    for (const fin of specs.filter((s) => s.kind === 'finish')) {
      const lastContent = [...specs].reverse().find((s) => s.kind === 'content' && s.choice === fin.choice);
      if (lastContent === undefined) continue;
      (fin.choiceObj['delta'] as Json)['content'] = (lastContent.choiceObj['delta'] as Json)['content'];
      fin.tokens = lastContent.tokens;
      if (lastContent.text !== undefined) fin.text = lastContent.text;
      specs = specs.filter((s) => s !== lastContent);
    }
  }
  const events: StreamEvent[] = [];
  let runningTokens = 0;
  specs.forEach((s, k) => {
    const choice = s.choiceObj;
    const delta = choice['delta'] as Json;
    if (f.has('choice-index-increments')) choice['index'] = k;
    if (s.kind === 'role' && f.has('role-missing-first-delta')) delete delta['role'];
    if (f.has('role-in-every-delta') && (s.kind === 'content' || s.kind === 'finish')) choice['delta'] = { role: 'assistant', ...delta };
    if (s.kind === 'finish') {
      if (f.has('finish-reason-empty')) choice['finish_reason'] = '';
      if (f.has('finish-reason-unknown')) choice['finish_reason'] = 'eos';
      const isTool = (plan.choices[s.choice]?.toolCalls.length ?? 0) > 0;
      if (isTool && f.has('finish-reason-stop-after-tool')) choice['finish_reason'] = 'stop';
      if (!isTool && f.has('finish-reason-tool-calls-without-calls')) choice['finish_reason'] = 'tool_calls';
    } else if (f.has('finish-reason-missing-interim')) delete choice['finish_reason'];
    const calls = delta['tool_calls'] as Json[] | undefined;
    const call = calls?.[0];
    if (call !== undefined) {
      if (f.has('tool-delta-no-index')) delete call['index'];
      if (s.kind === 'tool-head' && f.has('tool-delta-no-id')) delete call['id'];
      if (s.kind === 'tool-args' && f.has('tool-identity-changes')) {
        call['id'] = `call_changed${k}`;
        call['type'] = 'function';
      }
      const fn = call['function'] as Json;
      if (f.has('tool-arguments-object')) {
        if (s.kind === 'tool-head') fn['arguments'] = JSON.parse(plan.choices[s.choice]?.toolCalls[s.call ?? 0]?.arguments ?? '{}') as unknown;
        else if (s.kind === 'tool-args') return;
      }
      if (f.has('tool-arguments-invalid-json') && s.kind === 'tool-args' && specs.slice(k + 1).every((o) => o.kind !== 'tool-args' || o.choice !== s.choice || o.call !== s.call)) {
        fn['arguments'] = String(fn['arguments']).replace(/}\s*$/, '');
      }
    }
    runningTokens += s.tokens;
    const chunk: Json = { id: chunkId(ctx, k), object, created, model: ctx.model, choices: [choice] };
    if (f.has('chunk-no-id-created')) {
      delete chunk['id'];
      delete chunk['created'];
    }
    if (f.has('usage-on-every-chunk')) chunk['usage'] = { prompt_tokens: plan.promptTokens, completion_tokens: runningTokens, total_tokens: plan.promptTokens + runningTokens };
    else if (includeUsage && !f.has('usage-null-omitted')) chunk['usage'] = null;
    const e: StreamEvent = { atMs: stepTimes[s.step] ?? lastTime, data: `data: ${JSON.stringify(chunk)}\n\n`, tokens: s.tokens, content: s.tokens > 0, choice: s.choice };
    if (s.text !== undefined) e.text = s.text;
    if (s.call !== undefined) e.call = s.call;
    events.push(e);
  });
  if ((includeUsage && !f.has('usage-chunk-missing') && !f.has('stream-truncated')) || f.has('usage-unrequested')) {
    const chunk: Json = { id: chunkId(ctx, specs.length), object, created, model: ctx.model, choices: f.has('usage-chunk-choices-null') ? null : [], usage: usageOf(plan, f) };
    if (f.has('usage-chunk-no-id') || f.has('chunk-no-id-created')) {
      delete chunk['id'];
      delete chunk['created'];
      if (f.has('usage-chunk-no-id')) delete chunk['model'];
    }
    events.push({ atMs: lastTime, data: `data: ${JSON.stringify(chunk)}\n\n`, tokens: 0, content: false });
  }
  if (!f.has('stream-no-done')) events.push({ atMs: lastTime, data: f.has('stream-done-trailing-space') ? 'data: [DONE] \n\n' : 'data: [DONE]\n\n', tokens: 0, content: false });
  if (f.has('stream-data-after-done')) {
    const last = events[events.length - 2];
    if (last !== undefined) events.push({ ...last, tokens: 0, content: false });
  }
  const firstAt = events[0]?.atMs ?? 0;
  if (f.has('stream-empty-data-event')) events.splice(1, 0, { atMs: firstAt, data: 'data: \n\n', tokens: 0, content: false });
  if (f.has('stream-comment-as-data')) events.splice(1, 0, { atMs: firstAt, data: 'data: : keep-alive\n\n', tokens: 0, content: false });
  if (f.has('stream-meta-only-event')) events.splice(1, 0, { atMs: firstAt, data: 'id: 1\nretry: 3000\n\n', tokens: 0, content: false });
  if (f.has('stream-disconnect')) {
    const contentAt = events.map((e, k) => (e.content ? k : -1)).filter((k) => k >= 0);
    const cut = contentAt[Math.floor(contentAt.length / 2)] ?? 1;
    events.splice(cut, events.length - cut, { atMs: events[cut]?.atMs ?? lastTime, data: '', tokens: 0, content: false, action: 'destroy' });
  }
  return events;
}

function chunkId(ctx: RenderContext, k: number): string {
  if (ctx.faults.has('stream-id-empty')) return '';
  if (ctx.faults.has('stream-id-changes') && k > 0) return `${ctx.id}-${k}`;
  return ctx.id;
}

/** Spec, Chat completion (non-streaming): id, object "chat.completion", created, model, choices, usage. */
export function renderCompletion(plan: CompletionPlan, ctx: RenderContext): string {
  const f = ctx.faults;
  const message = (c: ChoicePlan): Json => {
    const m: Json = { role: 'assistant', content: c.content, refusal: null };
    if (c.toolCalls.length > 0) {
      m['tool_calls'] = c.toolCalls.map((t) => {
        const args: unknown = f.has('tool-arguments-object') ? JSON.parse(t.arguments) : f.has('tool-arguments-invalid-json') ? t.arguments.replace(/}\s*$/, '') : t.arguments;
        const call: Json = { id: t.id, type: 'function', function: { name: t.name, arguments: args } };
        if (f.has('tool-delta-no-id')) delete call['id'];
        return call;
      });
    }
    if (f.has('content-missing')) delete m['content'];
    if (f.has('refusal-missing')) delete m['refusal'];
    return m;
  };
  if (f.size === 0) {
    let tail = plan.streamCache.get('full') as string | undefined;
    if (tail === undefined) {
      tail = JSON.stringify({
        choices: plan.choices.map((c) => ({ index: c.index, message: message(c), logprobs: null, finish_reason: c.finishReason })),
        usage: usageOf(plan, f),
      }).slice(1);
      plan.streamCache.set('full', tail);
    }
    return prefixOf(ctx, 'chat.completion') + tail;
  }
  const body: Json = {
    id: ctx.id,
    object: f.has('completion-object-wrong') ? 'text_completion' : 'chat.completion',
    created: f.has('created-milliseconds') ? ctx.created * 1000 : ctx.created,
    model: ctx.model,
    choices: plan.choices.map((c, k) => {
      let finish: string | null = c.finishReason;
      if (f.has('finish-reason-empty')) finish = '';
      if (f.has('finish-reason-unknown')) finish = 'eos';
      if (c.toolCalls.length > 0 && f.has('finish-reason-stop-after-tool')) finish = 'stop';
      if (c.toolCalls.length === 0 && f.has('finish-reason-tool-calls-without-calls')) finish = 'tool_calls';
      if (f.has('finish-reason-null-nonstream')) finish = null;
      return { index: f.has('choice-index-increments') ? k + 1 : c.index, message: message(c), logprobs: null, finish_reason: finish };
    }),
    usage: usageOf(plan, f),
  };
  if (f.has('chunk-no-id-created') || f.has('completion-no-id')) delete body['id'];
  if (f.has('chunk-no-id-created')) delete body['created'];
  return JSON.stringify(body);
}

/** The chat completions renderer of the mock's generated answers. */
export const chatRenderer: AnswerRenderer = {
  steps: (plan, ask) => streamStepCount(plan, ask.includeUsage),
  whole: (plan, _ask, ctx) => renderCompletion(plan, ctx),
  stream: (plan, ask, ctx, times) => renderStream(plan, ask.includeUsage, ctx, times),
  wire: (plan, ask, ctx, events) => streamWire(plan, ask.includeUsage, ctx, events),
  // Compat (§2 #18): "Errors after streaming starts must be sent as data:{"error":{…}} and the stream then ended."
  failure: (at, errorBody) => [...(errorBody === null ? [] : [{ atMs: at, data: `data: ${errorBody}\n\n`, tokens: 0, content: false }]), { atMs: at, data: 'data: [DONE]\n\n', tokens: 0, content: false }],
};
