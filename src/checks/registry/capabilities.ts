import { idsOfRules } from './stream-rule-ids.ts';
import { embeddingsRequirementIds } from './embeddings-rule-ids.ts';
/**
 * The capability model (issue 19; docs/conformance.md, "Capabilities"). The core is what the seed
 * shows: its endpoints, the fields of its tables (request members model, messages, temperature,
 * stream, tools), the stream framing, tool calls and bearer auth; the rubric grades it everywhere.
 * Spec, chat completions: "Other fields: not shown". Every feature beyond that table is a
 * capability: iari probes whether the server honours it, ignores it, refuses it or breaks it, and
 * judges the requirements it carries only where the server offers it (CHAT-020: a server may ignore
 * a member it does not know), unless the user declares it with `--expect`.
 */
export const capabilityNames = [
  'json-object',
  'json-schema',
  'stream-usage',
  'tool-choice',
  'parallel-tool-calls',
  'parallel-tool-calls-false',
  'stop',
  'n',
  'seed',
  'logprobs',
  'max-completion-tokens',
  'reasoning',
  'reasoning-effort',
  'model-retrieve',
  'receipts',
  'embeddings',
  'metrics',
] as const;
export type Capability = (typeof capabilityNames)[number];

export function isCapability(name: string): name is Capability {
  return (capabilityNames as readonly string[]).includes(name);
}

/**
 * What a probe found: `honoured` (the feature works), `ignored` (accepted, no effect), `refused`
 * (a 4xx), `absent` (the route is not served), `broken` (the server takes it up and gets it wrong:
 * its requirements are judged, and fail where clients break), `undecided` (the probe could not tell,
 * e.g. a 5xx: the requirements are judged, so nothing is hidden).
 */
export const capabilityStatuses = ['honoured', 'ignored', 'refused', 'absent', 'broken', 'undecided'] as const;
export type CapabilityStatus = (typeof capabilityStatuses)[number];

export interface CapabilityProbe {
  status: CapabilityStatus;
  /** One line: what the probe sent and saw. */
  detail: string;
  requestId?: string;
  /** The model that offers it, where that matters (a reasoning model among the listed ones). */
  model?: string;
}

export interface CapabilityDef {
  title: string;
  /** The request member or route that carries it. */
  member: string;
  /** The requirement IDs judged only where the server offers it. */
  ids: readonly string[];
}

export const capabilityDefs: Readonly<Record<Capability, CapabilityDef>> = {
  'json-object': { title: 'JSON mode', member: 'response_format {"type":"json_object"}', ids: ['CHAT-034'] },
  'json-schema': { title: 'Structured Outputs (strict JSON Schema)', member: 'response_format {"type":"json_schema"}', ids: ['CHAT-035', 'CHAT-036', 'CHAT-037'] },
  'stream-usage': { title: 'Usage in streams', member: 'stream_options.include_usage', ids: ['CHAT-028', ...idsOfRules(['usage-chunk-missing', 'usage-chunk-not-last', 'usage-null-omitted', 'usage-chunk-envelope', 'usage-counts'])] },
  'tool-choice': { title: 'tool_choice none, required and named', member: 'tool_choice', ids: ['TOOLS-018', 'TOOLS-019', 'TOOLS-023'] },
  'parallel-tool-calls': { title: 'Parallel tool calls', member: 'two tool calls in one streamed turn', ids: ['TOOLS-024', 'TOOLS-025'] },
  'parallel-tool-calls-false': { title: 'One call per turn on request', member: 'parallel_tool_calls false', ids: ['TOOLS-020'] },
  stop: { title: 'Stop sequences', member: 'stop', ids: [] },
  n: { title: 'Several choices', member: 'n', ids: ['CHAT-029', ...idsOfRules(['choice-missing'])] },
  seed: { title: 'Seeded sampling', member: 'seed', ids: [] },
  logprobs: { title: 'Log probabilities', member: 'logprobs', ids: [] },
  'max-completion-tokens': { title: 'Completion length bound', member: 'max_completion_tokens', ids: ['CHAT-030'] },
  reasoning: { title: 'Reasoning models', member: 'delta.reasoning_content / delta.reasoning', ids: ['CHAT-038', 'CHAT-STREAM-048', 'CHAT-STREAM-049', 'CHAT-STREAM-050', 'CLIENT-026', 'CLIENT-027', 'CLIENT-028', 'CLIENT-045', 'CLIENT-054'] },
  'reasoning-effort': { title: 'Reasoning effort', member: 'reasoning_effort', ids: ['CHAT-039'] },
  'model-retrieve': { title: 'Retrieve one model', member: 'GET /v1/models/{id}', ids: ['MODELS-014', 'MODELS-015', 'MODELS-016', 'MODELS-017', 'MODELS-018'] },
  receipts: { title: 'Receipts over HTTP', member: 'GET /v1/receipts/keys', ids: [] },
  embeddings: { title: 'Embeddings', member: 'POST /v1/embeddings', ids: embeddingsRequirementIds },
  metrics: { title: 'Prometheus metrics', member: 'GET /metrics', ids: ['METRICS-001', 'METRICS-002', 'METRICS-003'] },
};

/** The capability whose requirements include `id`, if any. */
export function capabilityOfId(id: string): Capability | undefined {
  return capabilityNames.find((c) => capabilityDefs[c].ids.includes(id));
}

/** One row of the capability table in every report format. */
export interface CapabilityRow {
  name: Capability;
  title: string;
  member: string;
  status: CapabilityStatus | 'not-probed';
  detail: string;
  /** Declared with --expect. */
  expected: boolean;
  /** `fail` when expected but not offered; `judged` when its requirements were judged; `skipped` otherwise. */
  outcome: 'judged' | 'skipped' | 'fail';
  requirementIds: readonly string[];
}

/** Offered: its requirements are judged. Broken and undecided are judged too, so nothing is hidden. */
export function offered(status: CapabilityStatus): boolean {
  return status === 'honoured' || status === 'broken' || status === 'undecided';
}

/** The probes of one run, each sent once, and what the user declared with --expect. */
export class CapabilityBook {
  readonly expected: ReadonlySet<Capability>;
  readonly #probes = new Map<Capability, Promise<CapabilityProbe>>();
  readonly #found = new Map<Capability, CapabilityProbe>();

  constructor(expected: readonly Capability[] = []) {
    this.expected = new Set(expected);
  }

  /** The probe of `cap`, run once per run by `make`. */
  probe(cap: Capability, make: () => Promise<CapabilityProbe>): Promise<CapabilityProbe> {
    let p = this.#probes.get(cap);
    if (p === undefined) {
      p = make().then((r) => {
        this.#found.set(cap, r);
        return r;
      });
      p.catch(() => {});
      this.#probes.set(cap, p);
    }
    return p;
  }

  /** Records a finding made outside `probe` (e.g. receipts, decided by their own discovery). */
  record(cap: Capability, found: CapabilityProbe): void {
    if (!this.#found.has(cap)) this.#found.set(cap, found);
  }

  snapshot(): Partial<Record<Capability, CapabilityProbe>> {
    return Object.fromEntries(this.#found);
  }
}

/** The table rows from what the probes found (`found` may come from several check runs, merged). */
export function capabilityTable(found: Partial<Record<Capability, CapabilityProbe>>, expected: readonly string[]): CapabilityRow[] {
  return capabilityNames.map((name) => {
    const def = capabilityDefs[name];
    const p = found[name];
    const isExpected = expected.includes(name);
    const status = p?.status ?? 'not-probed';
    const outcome: CapabilityRow['outcome'] = p === undefined ? (isExpected ? 'fail' : 'skipped') : offered(p.status) ? 'judged' : isExpected ? 'fail' : 'skipped';
    return { name, title: def.title, member: def.member, status, detail: p?.detail ?? 'no check that needs it ran', expected: isExpected, outcome, requirementIds: def.ids };
  });
}

