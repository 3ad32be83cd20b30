import type { CheckDef } from '../context/check-types.ts';
import { agentsSdk, CLIENT_NAMES } from '../clients/client-libraries.ts';
import { clientOp, CLIENT_MAX_TOKENS, TOOL_PROMPT, TOOL_RESULT, textProblem, toolCallProblem, type OpEnv, type OpResult } from '../clients/client-op.ts';
import { weatherTool } from '../requests/responses-requests.ts';
import { responsesNotServed } from './clients-openai-responses.ts';

// Compat (OpenAI Agents SDK for TypeScript, "Quickstart" and "Tools: function tools"): the agent
// loop on POST /v1/responses (issue 36). An Agent with one function tool runs to its final output,
// plain and streamed, on an OpenAIResponsesModel built from openai-node with only baseURL and
// apiKey set (the SDK's "custom OpenAI client" path), tracing off. The loop is what breaks servers
// (openai-agents-python #1616): it resends every output item it received, then the tool's output.

const client = CLIENT_NAMES.agents;
const MAX_TURNS = 4;

type Sdk = NonNullable<Awaited<ReturnType<typeof agentsSdk>>>;

/** What the tool saw, and the agent built to call it (forced on the first turn; the SDK resets tool_choice after a call). */
function weatherAgent(sdk: Sdk): { agent: import('@openai/agents').Agent<unknown, 'text'>; calls: unknown[] } {
  const calls: unknown[] = [];
  const getWeather = sdk.mod.tool({
    name: weatherTool.name,
    description: weatherTool.description,
    parameters: weatherTool.parameters as Parameters<Sdk['mod']['tool']>[0]['parameters'] & object,
    strict: true,
    execute: async (input: unknown) => {
      calls.push(input);
      return JSON.stringify(TOOL_RESULT);
    },
  } as Parameters<Sdk['mod']['tool']>[0]);
  const agent = new sdk.mod.Agent({
    name: 'iari weather agent',
    instructions: 'Answer with the weather tool.',
    model: sdk.model,
    tools: [getWeather],
    modelSettings: { toolChoice: weatherTool.name, maxTokens: CLIENT_MAX_TOKENS },
  });
  return { agent, calls };
}

/** The SDK, or a reason not to run: not installed, or the API not served. */
async function loaded(env: OpEnv): Promise<Sdk | 'not-installed' | { skip: string } | { problem: string }> {
  return (await responsesNotServed(env)) ?? (await agentsSdk(env.t, env.key, env.model)) ?? 'not-installed';
}

/**
 * What the Agents SDK raised, when it is the model's and not the server's: a turn the server ended
 * `incomplete` (the model reached max_output_tokens; the SDK raises ModelBehaviorError on any
 * unsuccessful terminal state, and RESP checks judge whether the status was truthful), or a model
 * that called the tool on every turn up to the limit. A turn limit reached with fewer calls than
 * turns is the server's: some turn handed the agent neither a call nor an answer (a terminal
 * response without its output items loops the agent so).
 */
export function modelsOwnStop(error: unknown, calls: number): string | undefined {
  const name = (error as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  const message = error instanceof Error ? error.message : '';
  if (name === 'ModelBehaviorError' && message.includes('"response.incomplete"')) return `undecided: the server ended a turn with response.incomplete (the model ran to max_output_tokens ${CLIENT_MAX_TOKENS}) and the Agents SDK raises ModelBehaviorError on it (${message}); RESP checks judge the status`;
  if (name === 'MaxTurnsExceededError' && calls >= MAX_TURNS) return `undecided: the model kept calling the tool for ${MAX_TURNS} turns (${message}); nothing on the wire is the server's fault`;
  return undefined;
}

/** The tool's argument as the SDK handed it to execute(): parsed JSON for a strict JSON-schema tool. */
function argsOf(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  try {
    return JSON.parse(input) as unknown;
  } catch (error) {
    return `not JSON: ${(error as Error).message}`;
  }
}

/** The run's verdict: the tool called with a city, then a text final output. */
export function agentRunProblem(calls: readonly unknown[], finalOutput: unknown): OpResult {
  // The first turn forces the call; a model that made none is RESP-010's to judge (tool_choice honoured), here undecided.
  if (calls.length === 0) return { skip: 'undecided: the agent finished without calling its tool; RESP-010 judges whether tool_choice is honoured' };
  const problem = toolCallProblem(weatherTool.name, argsOf(calls[0]));
  if (problem !== undefined) return problem;
  // The SDK raises on an incomplete turn, so a run that returned ended completed: an empty answer is the model's.
  return textProblem(finalOutput, 'stop', true);
}

async function guarded(calls: readonly unknown[], run: () => Promise<OpResult>): Promise<OpResult> {
  try {
    return await run();
  } catch (error) {
    const own = modelsOwnStop(error, calls.length);
    if (own !== undefined) return { skip: own };
    if ((error as { constructor?: { name?: unknown } } | null)?.constructor?.name === 'MaxTurnsExceededError') return { problem: `the agent ran ${MAX_TURNS} turns and called its tool ${calls.length} times: a turn handed it neither a function_call nor an answer (MaxTurnsExceededError: ${(error as Error).message})`, expected: 'a function_call, then a message', received: `${calls.length} tool calls` };
    throw error;
  }
}

const agentRun = clientOp({
  name: 'client-agents-run',
  id: 'CLIENT-RESP-009',
  client,
  call: 'run(agent) with one function tool',
  title: 'calls the tool, sends its output back and returns the final text',
  async run(env) {
    const sdk = await loaded(env);
    if (sdk === 'not-installed' || 'skip' in sdk || 'problem' in sdk) return sdk;
    const { agent, calls } = weatherAgent(sdk);
    return guarded(calls, async () => {
      const result = await sdk.runner.run(agent, TOOL_PROMPT, { maxTurns: MAX_TURNS });
      return agentRunProblem(calls, result.finalOutput);
    });
  },
});

const agentStream = clientOp({
  name: 'client-agents-run-stream',
  id: 'CLIENT-RESP-010',
  client,
  call: 'run(agent, { stream: true }) with one function tool',
  title: 'streams the turns, calls the tool, and completes with a final text equal to the last turn\'s deltas',
  async run(env) {
    const sdk = await loaded(env);
    if (sdk === 'not-installed' || 'skip' in sdk || 'problem' in sdk) return sdk;
    const { agent, calls } = weatherAgent(sdk);
    return guarded(calls, async () => {
      const result = await sdk.runner.run(agent, TOOL_PROMPT, { stream: true, maxTurns: MAX_TURNS });
      let text = '';
      for await (const event of result) {
        if (event.type !== 'raw_model_stream_event') continue;
        if (event.data.type === 'response_started') text = '';
        if (event.data.type === 'output_text_delta') text += event.data.delta;
      }
      await result.completed;
      if (result.error !== null && result.error !== undefined) throw result.error;
      const problem = agentRunProblem(calls, result.finalOutput);
      if (problem !== undefined) return problem;
      if (result.finalOutput !== text) return { problem: 'the final output differs from the text the last turn streamed', expected: text, received: result.finalOutput };
      return undefined;
    });
  },
});

export const agentsClientChecks: CheckDef[] = [agentRun, agentStream];
