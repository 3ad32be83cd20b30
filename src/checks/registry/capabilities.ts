import type { ProtocolCapability } from '../../protocols/protocol.ts';
import { defaultProtocols, type ProtocolList } from '../../protocols/registry.ts';
/**
 * The capability model (issue 19; docs/conformance.md, "Capabilities"). The core is what the seed
 * shows: its endpoints, the fields of its tables (request members model, messages, temperature,
 * stream, tools), the stream framing, tool calls and bearer auth; the rubric grades it everywhere.
 * Spec, chat completions: "Other fields: not shown". Every feature beyond that table is a
 * capability: iari probes whether the server honours it, ignores it, refuses it or breaks it, and
 * judges the requirements it carries only where the server offers it (CHAT-020: a server may ignore
 * a member it does not know), unless the user declares it with `--expect`. An API's features and
 * an API beyond the seed's are its protocol's (Protocol.capabilities, Protocol.capability); the
 * interface's own are here.
 */
export type Capability = string;

export type CapabilityDef = ProtocolCapability;

const modelRetrieve: CapabilityDef = { name: 'model-retrieve', title: 'Retrieve one model', member: 'GET /v1/models/{id}', ids: ['MODELS-014', 'MODELS-015', 'MODELS-016', 'MODELS-017', 'MODELS-018'] };
const receipts: CapabilityDef = { name: 'receipts', title: 'Receipts over HTTP', member: 'GET /v1/receipts/keys', ids: [] };
const metrics: CapabilityDef = { name: 'metrics', title: 'Prometheus metrics', member: 'GET /metrics', ids: ['METRICS-001', 'METRICS-002', 'METRICS-003'] };

const ofList = new WeakMap<ProtocolList, ReadonlyMap<Capability, CapabilityDef>>();

/** Every capability of a run, in table order: the APIs' features, the interface's own, the APIs beyond the seed, /metrics. */
export function capabilityDefsOf(protocols: ProtocolList = defaultProtocols): ReadonlyMap<Capability, CapabilityDef> {
  let defs = ofList.get(protocols);
  if (defs === undefined) {
    const list = [...protocols.flatMap((p) => p.capabilities ?? []), modelRetrieve, receipts, ...protocols.flatMap((p) => (p.capability === undefined ? [] : [p.capability])), metrics];
    defs = new Map(list.map((d) => [d.name, d]));
    ofList.set(protocols, defs);
  }
  return defs;
}

/** The names, in table order. */
export const capabilityNamesOf = (protocols: ProtocolList = defaultProtocols): Capability[] => [...capabilityDefsOf(protocols).keys()];

/** The definition of a capability the run knows (an unknown name is a bug: option validation refuses it first). */
export function capabilityDef(protocols: ProtocolList, cap: Capability): CapabilityDef {
  const d = capabilityDefsOf(protocols).get(cap);
  if (d === undefined) throw new Error(`unknown capability ${cap}`);
  return d;
}

export function isCapability(name: string, protocols: ProtocolList = defaultProtocols): boolean {
  return capabilityDefsOf(protocols).has(name);
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

/** The capability whose requirements include `id`, if any. */
export function capabilityOfId(id: string, protocols: ProtocolList = defaultProtocols): Capability | undefined {
  return [...capabilityDefsOf(protocols).values()].find((d) => d.ids.includes(id))?.name;
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
export function capabilityTable(found: Partial<Record<Capability, CapabilityProbe>>, expected: readonly string[], protocols: ProtocolList = defaultProtocols): CapabilityRow[] {
  return [...capabilityDefsOf(protocols).values()].map((def) => {
    const name = def.name;
    const p = found[name];
    const isExpected = expected.includes(name);
    const status = p?.status ?? 'not-probed';
    const outcome: CapabilityRow['outcome'] = p === undefined ? (isExpected ? 'fail' : 'skipped') : offered(p.status) ? 'judged' : isExpected ? 'fail' : 'skipped';
    return { name, title: def.title, member: def.member, status, detail: p?.detail ?? 'no check that needs it ran', expected: isExpected, outcome, requirementIds: def.ids };
  });
}

