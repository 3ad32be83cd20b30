import type { ChatMessage } from './prompts.ts';
import { buildWorkload, type Workload, type WorkloadSpec } from './workload.ts';
import { Conversations } from './conversation.ts';
import { traceWorkload } from './trace-workload.ts';
import { embeddingsWorkload } from './embeddings.ts';
import type { TraceEntry } from './trace.ts';
import { CHAT_COMPLETIONS_ROUTE } from '../../protocols/chat-completions/chat-request.ts';
import { EMBEDDINGS_ROUTE } from '../../protocols/embeddings/embeddings-request.ts';
import type { EmbeddingsBodyCheck } from '../../protocols/embeddings/embeddings-response.ts';

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

/** Where the requests go (under the base URL) and how a whole answer is checked (absent: as a chat completion). */
interface Endpoint {
  route: string;
  check?: EmbeddingsBodyCheck;
}

/** What a run's requests come from: the generator's kind, its requests behind the one Workload interface, and their endpoint. */
export type RequestSource = Endpoint &
  (
    | { kind: 'trace' | 'embeddings' | 'requests'; workload: Workload }
    /** Turns are bound to requests as the conversation executor sends them (conversation-engine.ts). */
    | { kind: 'conversations'; workload: Conversations }
  );

/** Chat completions: every generator but embeddings. */
export const CHAT: Endpoint = { route: CHAT_COMPLETIONS_ROUTE };

interface Generator {
  kind: RequestSource['kind'];
  applies(spec: WorkloadSpec, o: SourceOptions): boolean;
  build(spec: WorkloadSpec, o: SourceOptions): RequestSource;
}

/**
 * The request generators, one per kind of workload, in the order they claim a workload: a trace
 * gives every request's lengths, embeddings change the route, conversations carry their history,
 * and every other workload (built-in or --prompts messages, synthetic lengths, datasets, shared
 * prefixes, tools) is one request per `seq` (workload.ts). A new generator is one entry here.
 */
const GENERATORS: readonly Generator[] = [
  {
    kind: 'trace',
    applies: (_, o) => o.entries !== undefined,
    build: (spec, o) => ({ ...CHAT, kind: 'trace', workload: traceWorkload(o.entries ?? [], { model: o.model, stream: o.stream, seed: o.seed, maxTokensField: spec.maxTokensField, extraBody: spec.extraBody }) }),
  },
  {
    kind: 'embeddings',
    applies: (spec) => spec.embeddings !== undefined,
    build: (spec, o) => {
      const e = spec.embeddings ?? { batch: 1 };
      // Every answer is checked against what its request sent: one embedding per input, in the encoding asked.
      const check: EmbeddingsBodyCheck = { api: 'embeddings', inputs: e.batch, ...(e.encodingFormat === undefined ? {} : { encodingFormat: e.encodingFormat }) };
      return { kind: 'embeddings', route: EMBEDDINGS_ROUTE, check, workload: embeddingsWorkload({ ...spec, embeddings: e }, o) };
    },
  },
  {
    kind: 'conversations',
    applies: (spec) => spec.conversation !== undefined,
    build: (spec, o) => ({ ...CHAT, kind: 'conversations', workload: new Conversations(spec, o) }),
  },
  { kind: 'requests', applies: () => true, build: (spec, o) => ({ ...CHAT, kind: 'requests', workload: buildWorkload(spec, o) }) },
];

/** The run's requests; undefined without a workload (the built-in prompts cycled with max_tokens: prompts.ts bodyFactory). */
export function requestSource(spec: WorkloadSpec | undefined, o: SourceOptions): RequestSource | undefined {
  if (spec === undefined) return undefined;
  const generator = GENERATORS.find((g) => g.applies(spec, o)) as Generator;
  return generator.build(spec, o);
}
