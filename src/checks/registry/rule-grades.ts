import type { StreamRuleCode } from '../../protocols/chat-completions/stream-rules.ts';
import type { EmbeddingsRuleCode } from '../../protocols/embeddings/embeddings-rules.ts';
import type { Grade } from '../kernel/verdicts.ts';
import { gradeOf } from './registry-view.ts';
import { streamRuleIds } from './stream-rule-ids.ts';
import { embeddingsRuleIds } from './embeddings-rule-ids.ts';

/**
 * The registry grade (default profile) of the requirement a protocol rule decides: what a load run
 * reads to call a response nonconforming (a MUST finding). The checks never grade here: the judge does.
 */
export function gradeOfRule(rule: StreamRuleCode): Grade {
  return gradeOf(streamRuleIds[rule]);
}

export function gradeOfEmbeddingsRule(rule: EmbeddingsRuleCode): Grade {
  return gradeOf(embeddingsRuleIds[rule]);
}
