import type { ChatMessage } from './prompts.ts';
import { promptsWorkload } from './workload.ts';
import { buildWorkload, type Workload, type WorkloadSpec } from './workload.ts';
import { Conversations } from './conversation.ts';
import { traceWorkload } from './trace-workload.ts';
import { embeddingsWorkload } from './embeddings.ts';
import { declaresTools, toolDeclarations } from './tool-calls.ts';
import type { TraceEntry } from './trace.ts';
import type { Protocol, RequestIntent, SentRequest } from '../../protocols/protocol.ts';
import { protocolNamed, type ProtocolList } from '../../protocols/registry.ts';

/** What every generator is given: the run's model, limits and seed, and (a trace replay) this shard's entries. */
export interface SourceOptions {
  model: string;
  maxTokens: number;
  stream: boolean;
  seed: number;
  prompts: readonly (readonly ChatMessage[])[];
  /** --trace: the entries this shard replays. */
  entries?: readonly TraceEntry[];
}

/**
 * What a run's requests come from: the generator's kind and its requests behind the one Workload
 * interface, the protocol that writes them (its route, each body, what every answer is checked
 * against). `prompts`: no workload was given (the built-in or --prompts messages cycled).
 */
export type RequestSource = {
  protocol: Protocol;
  /** The route under the base URL's path. */
  route: string;
  /** What every answer is checked against (the same for every request of the run). */
  sent: SentRequest;
  /** The JSON body of request `seq`. */
  body(seq: number): string;
} & (
  | { kind: 'prompts' | 'trace' | 'embeddings' | 'requests'; workload: Workload }
  /** Turns are bound to requests as the conversation executor sends them (conversation-engine.ts). */
  | { kind: 'conversations'; workload: Conversations }
);

interface Generator {
  kind: RequestSource['kind'];
  applies(spec: WorkloadSpec, o: SourceOptions): boolean;
  build(spec: WorkloadSpec, o: SourceOptions): Workload | Conversations;
}

/**
 * The request generators, one per kind of workload, in the order they claim a workload: a trace
 * gives every request's lengths, a batch of inputs makes one request of several texts,
 * conversations carry their history, and every other workload (built-in or --prompts messages,
 * synthetic lengths, datasets, shared prefixes, tools) is one request per `seq` (workload.ts). A
 * new generator is one entry here; which API the requests go to is the run's protocol's business.
 */
const GENERATORS: readonly Generator[] = [
  {
    kind: 'trace',
    applies: (_, o) => o.entries !== undefined,
    build: (spec, o) => traceWorkload(o.entries ?? [], { model: o.model, stream: o.stream, seed: o.seed, maxTokensField: spec.maxTokensField, extraBody: spec.extraBody }),
  },
  { kind: 'embeddings', applies: (spec) => spec.embeddings !== undefined, build: (spec, o) => embeddingsWorkload({ ...spec, embeddings: spec.embeddings ?? { batch: 1 } }, o) },
  { kind: 'conversations', applies: (spec) => spec.conversation !== undefined, build: (spec, o) => new Conversations(spec, o) },
  { kind: 'requests', applies: () => true, build: (spec, o) => buildWorkload(spec, o) },
];

/**
 * The API a run sends to: the one it names, else the one its workload needs (a batch of inputs is an
 * embeddings request), else the list's first.
 */
export function apiOf(list: ProtocolList, named: string | undefined, spec: WorkloadSpec | undefined): Protocol {
  if (named !== undefined) return protocolNamed(list, named);
  if (spec?.embeddings !== undefined) return protocolNamed(list, 'embeddings');
  return list[0];
}

/** The run's requests: its workload's generator (none: the prompts cycled), written by `protocol`. */
export function requestSource(spec: WorkloadSpec | undefined, o: SourceOptions, protocol: Protocol): RequestSource {
  const generator = spec === undefined ? undefined : (GENERATORS.find((g) => g.applies(spec, o)) as Generator);
  const workload = spec === undefined || generator === undefined ? promptsWorkload(o.prompts, o) : generator.build(spec, o);
  const tools = spec?.tools;
  const declared = tools === undefined ? [] : toolDeclarations(tools.tools);
  // --tools: the share of requests that declare tools carry them.
  const intentOf = (seq: number): RequestIntent => {
    const intent = workload.intent(seq);
    if (tools === undefined || !declaresTools(tools, o.seed, seq)) return intent;
    const floor = tools.outputFloor ?? 0;
    return { ...intent, tools: declared, ...(intent.maxOutputTokens < floor ? { maxOutputTokens: floor } : {}) };
  };
  // A workload that hands out the same intent again (the cycled prompts) gets the same body text, written once.
  const written = new WeakMap<RequestIntent, string>();
  const body = (seq: number): string => {
    const intent = intentOf(seq);
    let text = written.get(intent);
    if (text === undefined) written.set(intent, (text = JSON.stringify(protocol.request(intent).body)));
    return text;
  };
  const first = protocol.request(intentOf(0));
  const common = { protocol, route: first.route.path, sent: first.sent, body };
  return generator?.kind === 'conversations' ? { ...common, kind: 'conversations', workload: workload as Conversations } : { ...common, kind: generator?.kind ?? 'prompts', workload: workload as Workload } as RequestSource;
}
