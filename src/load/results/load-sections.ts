/**
 * The result sections of a load run (src/sections/section-contract.ts), in the order load.json,
 * the summary and report.html show them: the token figures, each API's own sections (from the
 * protocol list, Protocol.resultSections), then the workload and outcome sections. A run binds its
 * options into them (reuseSection's policy, the API it sends to); merging, summaries and reports
 * use the list without options.
 */
import type { AnyRunRecord, AnySection } from '../../sections/section-contract.ts';
import { coordinationRecord } from '../coordination/coordination-record.ts';
import { cacheSection } from './cache-report.ts';
import type { ConnectionReuse, PromptCountedBy, TurnReport } from './load-result.ts';
import { reasoningSection } from './reasoning-report.ts';
import { turnSection } from './turn-report.ts';
import { cancellationSection, type CancelServerFacts } from './cancel-report.ts';
import { defaultProtocols, type ProtocolList } from '../../protocols/registry.ts';
import { reuseSection } from './reuse-report.ts';
import { toolCallSection, type ToolsSeen } from './tool-call-report.ts';
import { tokenSection } from './token-report.ts';
import { serverResultSection } from '../../server-metrics/server-result-section.ts';
import type { ServerSection } from '../../server-metrics/server-section.ts';

export interface LoadSectionOptions {
  /** Whether the workload's output lengths are targets or max_tokens caps (default cap). */
  outputIs?: 'target' | 'cap';
  /** Who counted the asked prompt lengths (default o200k; --tokenizer server: the server's /tokenize). */
  promptCountedBy?: PromptCountedBy;
  /** --connection-reuse (default reuse). */
  connectionReuse?: ConnectionReuse;
  /** --tools: which requests declared tools, and the judge of their calls. */
  tools?: ToolsSeen;
  /** Conversation workloads: how the loop treats them and how many started and completed, read when the run ends. */
  conversations?: () => Omit<TurnReport, 'byTurn'>;
  /** The APIs the run knows (default: the registry's): each adds its result sections (Protocol.resultSections). */
  protocols?: ProtocolList;
  /** The API the run sends to and its workload, which the APIs' sections are bound to (absent: unbound, for merging and reports). */
  run?: { api: string; workload?: Readonly<Record<string, unknown>> };
  /** --cancel-rate / --cancel-after as given, and the server's view of the cuts read when the run ends (--server-metrics). */
  cancellation?: { plan: { rate: number; text: string }; server?: CancelServerFacts };
  /** --server-metrics: the run's server section, read when the run ends (undefined: no metrics were read). */
  server?: () => ServerSection | undefined;
}

export function loadSections(o: LoadSectionOptions = {}): AnySection[] {
  return [tokenSection(o.outputIs, o.promptCountedBy), ...protocolSections(o.protocols ?? defaultProtocols, o.run), turnSection(o.conversations), cacheSection, reasoningSection, toolCallSection(o.tools), reuseSection(o.connectionReuse), cancellationSection(o.cancellation?.plan, o.cancellation?.server), serverResultSection(o.server)] as AnySection[];
}

/** Every API's own sections, in the list's order (after the token figures, before the workload sections). */
function protocolSections(protocols: ProtocolList, run: LoadSectionOptions['run']): AnySection[] {
  return protocols.flatMap((p) => [...(p.resultSections?.(run === undefined ? undefined : { api: run.api, ...(run.workload === undefined ? {} : { workload: run.workload }) }) ?? [])]);
}

/** The run records a load.json may carry (section-contract.ts, RunRecord): the summary, report.html, the verdict and the merge's window iterate them. */
export const loadRunRecords: readonly AnyRunRecord[] = [coordinationRecord as AnyRunRecord];

/** The list without run options: what merging, the summary and report.html iterate. */
export const defaultLoadSections: readonly AnySection[] = loadSections();
