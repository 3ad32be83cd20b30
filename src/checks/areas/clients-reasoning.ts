import type { CheckDef } from '../context/check-types.ts';
import { CLIENT_NAMES, langchain, OPENAI_NODE, OPENAI_NODE_6, openaiNode, VERCEL_AI, VERCEL_AI_6, vercelAi, type OpenAINodeMajor, type VercelMajor } from '../clients/client-libraries.ts';
import { clientCaps, clientOp, CLIENT_PROMPT, type ClientOpDef, type OpEnv, type OpResult } from '../clients/client-op.ts';
import { probeCapability } from '../requests/capability-probes.ts';
import { offered } from '../registry/capabilities.ts';
import { streamChunks } from '../../protocols/chat-completions/stream-chunks.ts';
import { at, isRecord } from '../kernel/evidence.ts';

// What each client gives the application from a reasoning model's stream (capability reasoning):
// the answer text, without the reasoning in it. Seed, What the service does: "existing clients for
// that format work when only the base address is changed".

/** The reasoning model the probe found, or why the operation is skipped (or, under --expect reasoning, fails). */
async function reasoner(env: OpEnv): Promise<string | { skip: string } | { problem: string }> {
  const p = await env.probe('reasoning');
  if (!offered(p.status) || p.model === undefined) {
    if (env.expects('reasoning')) return { problem: `--expect reasoning: the server offers no reasoning model (${p.detail})` };
    return { skip: `capability reasoning not offered (${p.detail})` };
  }
  return p.model;
}

/**
 * The reasoning a stream carried as @ai-sdk/openai-compatible reads it: per delta, reasoning_content,
 * else reasoning (openai-compatible-chat-language-model.ts: "Most openai-compatible models set
 * `reasoning_content`, but some providers serving `gpt-oss` set `reasoning`"), the first non-empty.
 */
export function streamedReasoning(body: string): string {
  let out = '';
  for (const chunk of streamChunks({ chunks: [{ bytes: new TextEncoder().encode(body) }] })) {
    const d = at(chunk, 'choices', 0, 'delta');
    if (!isRecord(d)) continue;
    const piece = [d['reasoning_content'], d['reasoning']].find((x): x is string => typeof x === 'string' && x !== '');
    if (piece !== undefined) out += piece;
  }
  return out;
}

/** The answer text an application reads must be there, and must not carry the reasoning. */
function answerProblem(text: unknown): OpResult {
  if (typeof text !== 'string' || text === '') return { problem: 'the client returned no answer text', received: text };
  if (/<think>|<\/think>/.test(text)) return { problem: 'the answer text carries the reasoning (<think> block)', received: text.slice(0, 200) };
  return undefined;
}

/** What a library gave the application from the stream. */
interface Streamed {
  /** The answer text, joined. */
  text: string;
  /** A library that hands reasoning to the application apart (the AI SDK's reasoning parts): what it handed. */
  reasoningParts?: string;
  /** A library that reports errors as parts of the stream (the AI SDK): what they said. */
  errorParts?: string[];
}

/** One library's reasoning-stream operation: what differs from library to library. */
interface ReasoningStreamClient<L> extends Pick<ClientOpDef, 'name' | 'id' | 'client' | 'call' | 'title'> {
  /** The library, set up for the server; undefined when it is not installed; a skip when it cannot run here. */
  open(env: OpEnv, model: string): Promise<L | { skip: string } | undefined>;
  /** Streams one completion of CLIENT_PROMPT from `model` as an application does. */
  stream(lib: L, model: string, env: OpEnv): Promise<Streamed>;
}

function reasoningStreamOp<L>(c: ReasoningStreamClient<L>): CheckDef {
  return clientOp({
    name: c.name,
    id: c.id,
    client: c.client,
    call: c.call,
    title: c.title,
    async run(env) {
      const model = await reasoner(env);
      if (typeof model !== 'string') return model;
      const lib = await c.open(env, model);
      if (lib === undefined) return 'not-installed';
      if (typeof lib === 'object' && lib !== null && 'skip' in lib) return lib;
      const got = await c.stream(lib, model, env);
      if (got.errorParts !== undefined && got.errorParts.length > 0) return { problem: `the stream carried an error part: ${got.errorParts.join('; ')}` };
      return answerProblem(got.text) ?? (got.reasoningParts === undefined ? undefined : reasoningPartsProblem(got.text, got.reasoningParts, env));
    },
  });
}

async function reasoningPartsProblem(text: string, reasoning: string, env: OpEnv): Promise<OpResult> {
  // The AI SDK hands reasoning to the application as reasoning parts; it must not be in the text.
  if (reasoning !== '' && text.includes(reasoning.slice(0, 24))) return { problem: 'the text parts repeat the reasoning parts', received: text.slice(0, 200) };
  // What the server streamed as reasoning must reach the application as reasoning parts (UIs show them, agents keep them).
  const body = await env.t.last()?.body;
  const sent = body === undefined ? '' : streamedReasoning(body);
  if (sent !== '' && !reasoning.includes(sent)) {
    return { problem: reasoning === '' ? 'the server streamed reasoning, and the AI SDK gave the application no reasoning part' : 'the reasoning parts do not carry the reasoning the server streamed', expected: sent.slice(0, 200), received: reasoning.slice(0, 200) };
  }
  return undefined;
}

/** openai-node's reasoning-stream operation, for one major. */
function openaiReasoning(name: string, id: string, major: OpenAINodeMajor): CheckDef {
  return reasoningStreamOp({
    name,
    id,
    client: major.client,
    call: 'client.chat.completions.create({ stream: true }) on a reasoning model',
    title: 'yields content deltas that join to the answer without the reasoning',
    open: (env) => openaiNode(env.t, env.key, major),
    async stream(c, model) {
      let text = '';
      // Unbounded on purpose (issue 37 item 1): CLIENT-026 needs content after the reasoning, and a
      // bound would cut a reasoning model before its answer; the stream still ends at the check's deadline.
      for await (const chunk of await c.chat.completions.create({ model, messages: [{ role: 'user', content: CLIENT_PROMPT }], stream: true })) text += chunk.choices[0]?.delta?.content ?? '';
      return { text };
    },
  });
}

/** The AI SDK's reasoning-stream operation, for one major. */
function vercelReasoning(name: string, id: string, major: VercelMajor): CheckDef {
  return reasoningStreamOp({
    name,
    id,
    client: major.client,
    call: 'streamText() on a reasoning model',
    title: 'streams text parts that join to the answer without the reasoning, reasoning parts that carry the reasoning streamed, and no error part',
    open: async (env) => vercelAi(env.t, env.key, env.t.baseUrl, (await env.caps()).streamUsage, major),
    async stream(v, model, env) {
      env.t.keepBodies = true;
      const res = v.ai.streamText({ model: v.provider(model), prompt: CLIENT_PROMPT, maxRetries: 0, onError: () => undefined });
      const got = { text: '', reasoningParts: '', errorParts: [] as string[] };
      for await (const part of res.fullStream) {
        if (part.type === 'text-delta') got.text += part.text;
        else if (part.type === 'reasoning-delta') got.reasoningParts += part.text;
        else if (part.type === 'error') got.errorParts.push(String(part.error));
      }
      return got;
    },
  });
}

export const reasoningClientChecks: CheckDef[] = [
  openaiReasoning('client-openai-reasoning-stream', 'CLIENT-026', OPENAI_NODE),
  vercelReasoning('client-vercel-reasoning-stream', 'CLIENT-027', VERCEL_AI),
  reasoningStreamOp({
    name: 'client-langchain-reasoning-stream',
    id: 'CLIENT-028',
    client: CLIENT_NAMES.langchain,
    call: 'ChatOpenAI.stream() on a reasoning model',
    title: 'yields AIMessageChunks whose content is the answer without the reasoning',
    open: async (env, model) => langchain(env.t, env.key, model, env.t.baseUrl, await env.caps()),
    async stream(l) {
      let text = '';
      for await (const chunk of await l.chat.stream([new l.messages.HumanMessage(CLIENT_PROMPT)])) text += typeof chunk.content === 'string' ? chunk.content : '';
      return { text };
    },
  }),
  openaiReasoning('client-openai6-reasoning-stream', 'CLIENT-045', OPENAI_NODE_6),
  vercelReasoning('client-vercel6-reasoning-stream', 'CLIENT-054', VERCEL_AI_6),
];
