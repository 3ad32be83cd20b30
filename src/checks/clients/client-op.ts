import type { CheckContext, CheckDef } from '../context/check-types.ts';
import type { Capability } from '../registry/capabilities.ts';
import { probeCapability } from '../requests/capability-probes.ts';
import type { Judge } from '../kernel/judge.ts';
import type { Failure } from '../kernel/verdicts.ts';
import { modelUnderTest, PROMPT, unknownModelId, weatherTool } from '../requests/common-requests.ts';
import { clientCaps, type OpEnv, type OpResult } from './client-op-env.ts';
import { prepareClientProcess, runInClientProcess } from './client-process.ts';
import { ClientTransport, clientErrorText } from './client-transport.ts';
import { rateLimitGiveUp } from '../rate-limits/rate-limit-retry.ts';

export { clientCaps, type ClientCaps, type OpEnv, type OpResult, type OpTransport } from './client-op-env.ts';

/** An operation run in this process (openai-python's driver, the Codex CLI): the whole context and iari's transport. */
export interface LocalOpEnv extends OpEnv {
  ctx: CheckContext;
  t: ClientTransport;
}

export function localOpEnv(ctx: CheckContext, t: ClientTransport, model: string, key: string = ctx.http.tokenForProbe()): LocalOpEnv {
  return {
    ctx,
    t,
    model,
    key,
    sendsToken: ctx.http.sendsToken,
    unknownModel: unknownModelId(ctx),
    expects: (cap) => ctx.capabilities.expected.has(cap),
    caps: () => clientCaps(ctx),
    probe: (cap) => probeCapability(ctx, cap),
  };
}

export interface ClientOpDef {
  name: string;
  id: string;
  /** The library, as reports name it (CLIENT_NAMES). */
  client: string;
  /** The call a user makes, e.g. `client.models.list()`. */
  call: string;
  /** The behaviour sentence after "<client> <call>". */
  title: string;
  needsLimits?: boolean;
  timeoutMs?: number;
  /** Whether the operation calls a model (then it needs one from the list); default true. */
  needsModel?: boolean;
}

/** An operation of a JS client library: it runs in iari's client process (client-process.ts), by its name. */
export interface LibraryOpDef extends ClientOpDef {
  run(env: OpEnv): Promise<OpResult | 'not-installed'>;
}

/** An operation run in this process: openai-python's driver and the Codex CLI are processes of their own already. */
export interface LocalOpDef extends ClientOpDef {
  /** CheckDef.prepare: starts the library's slow resource (openai-python's driver) at the run's start. */
  prepare?(ctx: CheckContext): void;
  local(env: LocalOpEnv): Promise<OpResult | 'not-installed'>;
}

/** The library operations by name: what the client process runs (client-child.ts). */
export const libraryOps = new Map<string, (env: OpEnv) => Promise<OpResult | 'not-installed'>>();

/** Registers an operation the client process runs by name (the 429 operations share one check's shape, clients-rate-limit.ts). */
export function libraryOp(name: string, run: (env: OpEnv) => Promise<OpResult | 'not-installed'>): string {
  if (libraryOps.has(name)) throw new Error(`two library operations named ${name}`);
  libraryOps.set(name, run);
  return name;
}

/** npm packages to install for each library, named in the skip reason when one is missing. */
const packages: Record<string, string> = {
  'openai-node': 'openai',
  'openai-node 6': 'openai-v6@npm:openai@6',
  'Vercel AI SDK': 'ai @ai-sdk/openai-compatible',
  'Vercel AI SDK 6': 'ai-v6@npm:ai@6 @ai-sdk/openai-compatible-v2@npm:@ai-sdk/openai-compatible@2',
  LangChain: '@langchain/openai @langchain/core',
  'Agents SDK': '@openai/agents',
};

/**
 * One client operation as a check deciding one CLIENT requirement. Whatever the library throws is
 * the evidence, in its own words (class and message), with the x-request-id and a curl line of
 * the last request it sent.
 */
export function clientOp(def: LibraryOpDef | LocalOpDef): CheckDef {
  const local = 'local' in def ? def : undefined;
  if (!('local' in def)) libraryOp(def.name, def.run);
  const prepare = local === undefined ? prepareClientProcess : local.prepare;
  return {
    name: def.name,
    area: 'clients',
    ids: [def.id],
    title: `${def.client} ${def.call} ${def.title}`,
    ...(def.needsLimits === undefined ? {} : { needsLimits: def.needsLimits }),
    ...(def.timeoutMs === undefined ? {} : { timeoutMs: def.timeoutMs }),
    ...(prepare === undefined ? {} : { prepare }),
    async run(ctx: CheckContext, j: Judge): Promise<void> {
      const t = new ClientTransport(ctx);
      let model = '';
      if (def.needsModel !== false) {
        try {
          model = await modelUnderTest(ctx);
        } catch (error) {
          j.skip(def.id, `no model id to call it with (${(error as Error).message}; MODELS checks)`);
          return;
        }
      }
      const ran = local !== undefined ? await withConsoleCaptured(() => local.local(localOpEnv(ctx, t, model))) : await runInClientProcess({ name: def.name, ctx, t, model, token: ctx.http.tokenForProbe(), timeoutMs: def.timeoutMs ?? ctx.checkTimeoutMs });
      // iari's own process failed the operation (it never started, ended, or hung): nothing about the server was learned.
      if ('lost' in ran) {
        j.undecided(def.id, 'deadline', `not decided: ${ran.lost}`);
        return;
      }
      const { outcome, logged } = ran;
      // An answer that never came decides the operation as for the checks' own requests: blocked, its root cause named.
      const stalled = t.stall();
      if (stalled !== undefined && ('error' in outcome || outcome.value !== undefined)) throw stalled;
      // The run's rate-limit wait budget is spent: the runner skips the check and LIMIT-010 reports it.
      const giveUp = 'error' in outcome ? rateLimitGiveUp(outcome.error) : undefined;
      if (giveUp !== undefined) throw giveUp;
      // The client sent a member beyond the seed's table (its own default, or a forced tool) and the server
      // refused it: the capability table reports it; the operation is not judged unless it was expected.
      const refused = 'error' in outcome || (outcome.value !== undefined && outcome.value !== 'not-installed' && 'problem' in outcome.value) ? refusedExtension(t) : undefined;
      if (refused !== undefined) {
        const cap = capabilityOfMember(refused);
        const reason = `the server refused ${refused}, a request member beyond the seed's table that ${def.client} sent${cap === undefined ? '' : ` (capability ${cap})`}`;
        if (cap !== undefined && ctx.capabilities.expected.has(cap)) j.violatedHard(def.id, t.failure(`--expect ${cap}: ${reason}`));
        else j.skip(def.id, reason);
        return;
      }
      if ('error' in outcome) {
        j.violated(def.id, t.failure(`${def.client} ${def.call} threw ${clientErrorText(outcome.error)}${loggedNote(logged)}`, t.last()?.errorBody === undefined ? {} : { received: t.last()?.errorBody }));
        return;
      }
      judgeResult(j, def, t, outcome.value, logged);
    },
  };
}

export function judgeResult(j: Judge, def: Pick<ClientOpDef, 'id' | 'client' | 'call'>, t: ClientTransport, result: OpResult | 'not-installed', logged: readonly string[] = []): void {
  if (result === 'not-installed') j.skip(def.id, `${def.client} is not installed (npm install ${packages[def.client] ?? def.client})`);
  else if (result === undefined) j.pass(def.id);
  else if ('skip' in result) j.skip(def.id, result.skip);
  else if (result.deviation === true) j.nonStrict(def.id, opFailure(def, t, result, logged));
  else j.violated(def.id, opFailure(def, t, result, logged));
}

function opFailure(def: Pick<ClientOpDef, 'client' | 'call'>, t: ClientTransport, r: { problem: string; expected?: unknown; received?: unknown }, logged: readonly string[]): Failure {
  return t.failure(`${def.client} ${def.call}: ${r.problem}${loggedNote(logged)}`, { ...(r.expected === undefined ? {} : { expected: r.expected }), ...('received' in r ? { received: r.received } : {}) });
}

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug'] as const;

/**
 * Runs a client operation with the console taken over: the libraries print what they could not
 * parse ("Could not parse message into JSON", "[WARNING]: Received non-string content"), which
 * would otherwise land in the middle of iari's output. What they print becomes evidence instead.
 * Checks run one at a time, so nothing else writes to the console meanwhile.
 */
export async function withConsoleCaptured<T>(fn: () => Promise<T>): Promise<{ outcome: { value: T } | { error: unknown }; logged: string[] }> {
  const logged: string[] = [];
  const saved = CONSOLE_METHODS.map((m) => [m, console[m]] as const);
  for (const m of CONSOLE_METHODS) console[m] = (...args: unknown[]) => void logged.push(args.map((a) => (typeof a === 'string' ? a : a instanceof Error ? a.message : safeJson(a))).join(' '));
  try {
    return { outcome: { value: await fn() }, logged };
  } catch (error) {
    return { outcome: { error }, logged };
  } finally {
    for (const [m, f] of saved) console[m] = f;
  }
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

function loggedNote(logged: readonly string[]): string {
  if (logged.length === 0) return '';
  const text = logged.slice(0, 2).map((l) => l.replace(/\s+/g, ' ').trim()).join(' | ');
  return ` (the client logged: ${text.length > 300 ? `${text.slice(0, 300)}...` : text})`;
}

/** The request member a 400 names ("Unrecognized request argument supplied: X", or error.param X) when it is beyond the seed's table. */
export function refusedExtension(t: ClientTransport): string | undefined {
  const last = t.last();
  if (last?.status !== 400 || last.errorBody === undefined) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(last.errorBody);
  } catch {
    return undefined;
  }
  const error = typeof body === 'object' && body !== null ? (body as { error?: { param?: unknown; message?: unknown } }).error : undefined;
  const named = typeof error?.message === 'string' ? /Unrecognized request argument supplied: ([A-Za-z_.]+)/.exec(error.message)?.[1] : undefined;
  const member = named ?? (typeof error?.param === 'string' ? error.param : undefined);
  return member !== undefined && CHAT_EXTENSION_MEMBERS.includes(member.split('.')[0] ?? '') ? member : undefined;
}

/** Request members clients send that the seed's table does not show, by the capability they carry. */
const MEMBER_CAPABILITIES: Readonly<Record<string, Capability>> = {
  tool_choice: 'tool-choice',
  parallel_tool_calls: 'parallel-tool-calls-false',
  max_tokens: 'max-completion-tokens',
  max_completion_tokens: 'max-completion-tokens',
  stream_options: 'stream-usage',
  response_format: 'json-object',
  n: 'n',
  stop: 'stop',
  seed: 'seed',
  logprobs: 'logprobs',
  top_logprobs: 'logprobs',
  reasoning_effort: 'reasoning-effort',
};
const CHAT_EXTENSION_MEMBERS = [...Object.keys(MEMBER_CAPABILITIES), 'top_p', 'user', 'presence_penalty', 'frequency_penalty', 'logit_bias', 'metadata', 'store'];

export function capabilityOfMember(member: string): Capability | undefined {
  return MEMBER_CAPABILITIES[member.split('.')[0] ?? ''];
}

/** Most completion tokens an operation asks for: enough for a sentence, cheap on a real model. */
export const CLIENT_MAX_TOKENS = 48;


export const TOOL_PROMPT = 'What is the weather in Zürich?';

/** The prompt every client completion sends, and the tool every round trip declares and forces: the checks' own. */
export const CLIENT_PROMPT = PROMPT;
export const clientWeatherTool = weatherTool;

/** What the caller's tool answers, sent back as the tool message. */
export const TOOL_RESULT = { city: 'Zürich', temperature_c: 21, sky: 'clear' } as const;

/**
 * A text answer is acceptable when it has text, or when the server says it ran out of tokens.
 * `emptyIsModels`: the client tells a missing content (null) from an empty one (openai-node does;
 * the AI SDK and LangChain turn both into ""), so an empty answer the server ended normally
 * ("stop") is the model's choice, not the server's failure (issue 27): undecided.
 */
export function textProblem(text: unknown, finish: unknown, emptyIsModels = false): OpResult {
  if (typeof text !== 'string') return { problem: 'the client returned no text', expected: 'a string', received: text };
  if (emptyIsModels && text === '' && finish === 'stop') return { skip: 'undecided: the model answered no text (finish reason "stop"); nothing on the wire is the server\'s fault' };
  if (text === '' && finish !== 'length') return { problem: `the client returned empty text (finish reason ${JSON.stringify(finish)})`, expected: 'text, or finish reason length', received: '' };
  return undefined;
}

/**
 * The client reported no tool call at all. Only a server that honours tool_choice forces one: then
 * the missing call is its failure. Elsewhere the call was the model's to make (issue 27): undecided.
 */
export async function noToolCall(env: Pick<OpEnv, 'probe'>): Promise<OpResult> {
  const probe = await env.probe('tool-choice');
  if (probe.status === 'honoured') return { problem: 'the client reported no call of the forced tool', expected: clientWeatherTool.function.name, received: undefined };
  return { skip: `undecided: the model made no tool call and nothing forced one (tool_choice ${probe.status}: ${probe.detail}${probe.status === 'ignored' ? '; TOOLS-027 judges the ignored tool_choice' : ''})` };
}

/** The first tool call a client reports must be the forced function with a parsed `city` argument. */
export function toolCallProblem(name: unknown, args: unknown): OpResult {
  if (name !== clientWeatherTool.function.name) return { problem: 'the client reported no call of the forced tool', expected: clientWeatherTool.function.name, received: name };
  const city = typeof args === 'object' && args !== null ? (args as Record<string, unknown>)['city'] : undefined;
  if (typeof city !== 'string') return { problem: 'the client could not read the tool arguments as an object with city', expected: { city: 'a string' }, received: args };
  return undefined;
}
