/**
 * The result sections of a load run (src/sections/section-contract.ts), in the order load.json,
 * the summary and report.html show them. A run binds its options into them (reuseSection's
 * policy); merging, summaries and reports use the list without options.
 */
import type { AnySection } from '../../sections/section-contract.ts';
import { cacheSection } from './cache-report.ts';
import type { ConnectionReuse, TurnReport } from './load-result.ts';
import { reasoningSection } from './reasoning-report.ts';
import { turnSection } from './turn-report.ts';
import { cancellationSection, type CancelServerFacts } from './cancel-report.ts';
import { embeddingsSection } from './embeddings-report.ts';
import { reuseSection } from './reuse-report.ts';
import { toolCallSection, type ToolsSeen } from './tool-call-report.ts';
import { tokenSection } from './token-report.ts';

export interface LoadSectionOptions {
  /** Whether the workload's output lengths are targets or max_tokens caps (default cap). */
  outputIs?: 'target' | 'cap';
  /** --connection-reuse (default reuse). */
  connectionReuse?: ConnectionReuse;
  /** --tools: which requests declared tools, and the judge of their calls. */
  tools?: ToolsSeen;
  /** Conversation workloads: how the loop treats them and how many started and completed, read when the run ends. */
  conversations?: () => Omit<TurnReport, 'byTurn'>;
  /** --cancel-rate / --cancel-after as given, and the server's view of the cuts read when the run ends (--server-metrics). */
  /** --embeddings-batch: the inputs per request asked. */
  embeddingsBatch?: number;
  cancellation?: { plan: { rate: number; text: string }; server?: CancelServerFacts };
}

export function loadSections(o: LoadSectionOptions = {}): AnySection[] {
  return [tokenSection(o.outputIs), embeddingsSection(o.embeddingsBatch), turnSection(o.conversations), cacheSection, reasoningSection, toolCallSection(o.tools), reuseSection(o.connectionReuse), cancellationSection(o.cancellation?.plan, o.cancellation?.server)] as AnySection[];
}

/** The list without run options: what merging, the summary and report.html iterate. */
export const defaultLoadSections: readonly AnySection[] = loadSections();
