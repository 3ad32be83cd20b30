import type { CheckArea, CheckDef } from '../context/check-types.ts';
import { authChecks } from '../areas/auth.ts';
import { modelsChecks } from '../areas/models.ts';
import { serverMetricsCheck } from '../areas/server-metrics.ts';
import { meChecks } from '../areas/me.ts';
import { usageChecks } from '../areas/usage.ts';
import { chatChecks, chatSdkCheck } from '../areas/chat.ts';
import { chatFormatChecks } from '../areas/chat-format.ts';
import { chatStreamChecks, chatStreamSdkCheck } from '../areas/chat-stream.ts';
import { toolsChecks } from '../areas/tools.ts';
import { toolsBreadthChecks } from '../areas/tools-breadth.ts';
import { toolsChoiceChecks } from '../areas/tools-choice.ts';
import { reasoningChecks } from '../areas/reasoning.ts';
import { reasoningClientChecks } from '../areas/clients-reasoning.ts';
import { errorsChecks } from '../areas/errors.ts';
import { headersChecks } from '../areas/headers.ts';
import { keepAliveChecks } from '../areas/keep-alive.ts';
import { boundsChecks } from '../areas/bounds.ts';
import { limitsChecks } from '../areas/limits.ts';
import { receiptsChecks } from '../areas/receipts.ts';
import { embeddingsChecks } from '../areas/embeddings.ts';
import { responsesChecks } from '../areas/responses.ts';
import { openai6ClientChecks, openaiClientChecks } from '../areas/clients-openai.ts';
import { openaiResponsesClientChecks } from '../areas/clients-openai-responses.ts';
import { agentsClientChecks } from '../areas/clients-agents.ts';
import { codexClientChecks } from '../areas/clients-codex.ts';
import { openaiPythonResponsesClientChecks } from '../areas/clients-openai-python-responses.ts';
import { openaiPythonClientChecks } from '../areas/clients-openai-python.ts';
import { vercel6ClientChecks, vercelClientChecks } from '../areas/clients-vercel.ts';
import { langchainClientChecks } from '../areas/clients-langchain.ts';
import { cancelChecks } from '../areas/cancel.ts';
import { exchangeChecks } from '../areas/protocol-exchanges.ts';
import { defaultProtocols, type ProtocolList } from '../../protocols/registry.ts';
import { openaiRateLimitCheck, openai6RateLimitCheck, vercelRateLimitCheck, vercel6RateLimitCheck, langchainRateLimitCheck } from '../areas/clients-rate-limit.ts';

// The official SDK's CHAT checks run just before the CLIENT area (issue 41): openai-node runs in the client
// process (client-process.ts), which is still starting while the first areas run on this one.
const sdkChecks: readonly CheckDef[] = [chatSdkCheck, chatStreamSdkCheck];
// The metrics and CANCEL checks (serialised: /metrics is server-wide) come before them: CANCEL's waits
// (about 2 s, the main thread idle) cover what is left of the client process's imports.
const metricsThenCancel: readonly CheckDef[] = [serverMetricsCheck, ...cancelChecks];
const notSdk = (c: CheckDef): boolean => !sdkChecks.includes(c);

const before: readonly CheckDef[] = [...boundsChecks, ...authChecks, ...modelsChecks, ...meChecks, ...usageChecks, ...chatChecks.filter(notSdk), ...chatFormatChecks, ...chatStreamChecks.filter(notSdk), ...reasoningChecks, ...toolsChecks, ...toolsBreadthChecks, ...toolsChoiceChecks, ...errorsChecks, ...headersChecks, ...keepAliveChecks, ...metricsThenCancel, ...sdkChecks, ...openaiClientChecks, openaiRateLimitCheck, ...vercelClientChecks, vercelRateLimitCheck, ...langchainClientChecks, langchainRateLimitCheck, ...openaiPythonClientChecks, ...openai6ClientChecks, openai6RateLimitCheck, ...vercel6ClientChecks, vercel6RateLimitCheck, ...reasoningClientChecks, ...limitsChecks, ...receiptsChecks, ...embeddingsChecks, ...responsesChecks, ...openaiResponsesClientChecks, ...openaiPythonResponsesClientChecks, ...agentsClientChecks, ...codexClientChecks];

const ofList = new WeakMap<ProtocolList, readonly CheckDef[]>();

/** Every check of a run judging these APIs, in the order the suites run them (area by area; the APIs' declared exchanges after the shipped APIs' own checks). */
export function catalogOf(protocols: ProtocolList = defaultProtocols): readonly CheckDef[] {
  let list = ofList.get(protocols);
  if (list === undefined) ofList.set(protocols, (list = [...before, ...exchangeChecks(protocols)]));
  return list;
}

/** Every check of a default run. */
export const catalog: readonly CheckDef[] = catalogOf(defaultProtocols);

const byName = new Map(catalog.map((c) => [c.name, c]));

export function checkByName(name: string): CheckDef {
  const c = byName.get(name);
  if (c === undefined) throw new Error(`no check named "${name}"`);
  return c;
}

export function checksOfArea(area: CheckArea): CheckDef[] {
  return catalog.filter((c) => c.area === area);
}

/** The contract test title of a check: its requirement IDs, then its behaviour sentence. */
export function testTitle(def: CheckDef): string {
  return `${def.ids.join(', ')}: ${def.title}`;
}
