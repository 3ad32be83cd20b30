import type { CheckContext, CheckDef } from '../check-types.ts';
import type { Judge } from '../judge.ts';
import type { Failure } from '../verdicts.ts';
import { firstModel, PROMPT, weatherTool } from '../common-requests.ts';
import { ClientTransport, clientErrorText } from './client-transport.ts';
import { rateLimitGiveUp } from '../rate-limit-retry.ts';

/** What an operation hands back: nothing (it worked), a problem in the client's terms, or a reason not to judge. */
export type OpResult = undefined | { problem: string; expected?: unknown; received?: unknown } | { skip: string };

export interface OpEnv {
  ctx: CheckContext;
  t: ClientTransport;
  /** The first listed model (the MODELS checks judge the list; here it only has to yield one id). */
  model: string;
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
  run(env: OpEnv): Promise<OpResult | 'not-installed'>;
}

/** npm packages to install for each library, named in the skip reason when one is missing. */
const packages: Record<string, string> = {
  'openai-node': 'openai',
  'Vercel AI SDK': 'ai @ai-sdk/openai-compatible',
  LangChain: '@langchain/openai @langchain/core',
};

/**
 * One client operation as a check deciding one CLIENT requirement. Whatever the library throws is
 * the evidence, in its own words (class and message), with the x-request-id and a curl line of
 * the last request it sent.
 */
export function clientOp(def: ClientOpDef): CheckDef {
  return {
    name: def.name,
    area: 'clients',
    ids: [def.id],
    title: `${def.client} ${def.call} ${def.title}`,
    ...(def.needsLimits === undefined ? {} : { needsLimits: def.needsLimits }),
    ...(def.timeoutMs === undefined ? {} : { timeoutMs: def.timeoutMs }),
    async run(ctx: CheckContext, j: Judge): Promise<void> {
      const t = new ClientTransport(ctx);
      let model = '';
      if (def.needsModel !== false) {
        try {
          model = await firstModel(ctx);
        } catch (error) {
          j.skip(def.id, `no model id to call it with (${(error as Error).message}; MODELS checks)`);
          return;
        }
      }
      const { outcome, logged } = await withConsoleCaptured(() => def.run({ ctx, t, model }));
      // The run's rate-limit wait budget is spent: the runner skips the check and LIMIT-010 reports it.
      const giveUp = 'error' in outcome ? rateLimitGiveUp(outcome.error) : undefined;
      if (giveUp !== undefined) throw giveUp;
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

/** Most completion tokens an operation asks for: enough for a sentence, cheap on a real model. */
export const CLIENT_MAX_TOKENS = 48;


export const TOOL_PROMPT = 'What is the weather in Zürich?';

/** The prompt every client completion sends, and the tool every round trip declares and forces: the checks' own. */
export const CLIENT_PROMPT = PROMPT;
export const clientWeatherTool = weatherTool;

/** What the caller's tool answers, sent back as the tool message. */
export const TOOL_RESULT = { city: 'Zürich', temperature_c: 21, sky: 'clear' } as const;

/** A text answer is acceptable when it has text, or when the server says it ran out of tokens. */
export function textProblem(text: unknown, finish: unknown): OpResult {
  if (typeof text !== 'string') return { problem: 'the client returned no text', expected: 'a string', received: text };
  if (text === '' && finish !== 'length') return { problem: `the client returned empty text (finish reason ${JSON.stringify(finish)})`, expected: 'text, or finish reason length', received: '' };
  return undefined;
}

/** The first tool call a client reports must be the forced function with a parsed `city` argument. */
export function toolCallProblem(name: unknown, args: unknown): OpResult {
  if (name !== clientWeatherTool.function.name) return { problem: 'the client reported no call of the forced tool', expected: clientWeatherTool.function.name, received: name };
  const city = typeof args === 'object' && args !== null ? (args as Record<string, unknown>)['city'] : undefined;
  if (typeof city !== 'string') return { problem: 'the client could not read the tool arguments as an object with city', expected: { city: 'a string' }, received: args };
  return undefined;
}
