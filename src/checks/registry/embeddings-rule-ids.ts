import type { EmbeddingsRuleCode } from '../../protocols/embeddings/embeddings-rules.ts';

/**
 * The one table from the embeddings checker's rule codes (src/protocols/embeddings/embeddings-rules.ts)
 * to the requirement each decides; grades are the registry's (spec/requirements.yaml).
 */
export const embeddingsRuleIds = {
  'object-wrong': 'EMB-007',
  'item-object-wrong': 'EMB-007',
  'data-invalid': 'EMB-001',
  'model-invalid': 'EMB-001',
  'embedding-invalid': 'EMB-001',
  'lengths-differ': 'EMB-001',
  'count-mismatch': 'EMB-002',
  'index-invalid': 'EMB-003',
  'usage-missing': 'EMB-004',
  'usage-counts': 'EMB-004',
  'base64-not-string': 'EMB-005',
  'base64-invalid': 'EMB-005',
  'base64-differs': 'EMB-005',
  'dimensions-not-honoured': 'EMB-006',
} as const satisfies Record<EmbeddingsRuleCode, string>;

/** Every requirement some embeddings rule decides, each once, in table order. */
export const embeddingsRequirementIds: readonly string[] = [...new Set(Object.values(embeddingsRuleIds))].sort();
