import type { RuleTable } from '../protocol.ts';

/**
 * Every rule code the embeddings response checker can report: what the format expects (one line)
 * and the requirement it decides. Grades are the registry's (spec/requirements.yaml).
 */
export const embeddingsRules = {
  // The envelope: compat CreateEmbeddingResponse {object: "list", data, model, usage}
  'object-wrong': { requirement: 'EMB-007', expects: 'object is "list"' },
  'item-object-wrong': { requirement: 'EMB-007', expects: 'every item of data has object "embedding"' },
  'data-invalid': { requirement: 'EMB-001', expects: 'data is an array of objects with index and embedding' },
  'model-invalid': { requirement: 'EMB-001', expects: 'model is a non-empty string' },
  'embedding-invalid': { requirement: 'EMB-001', expects: 'with encoding_format float (or none), embedding is a non-empty array of finite numbers' },
  'lengths-differ': { requirement: 'EMB-001', expects: 'every embedding of one answer has the same length' },
  // One per input, in input order
  'count-mismatch': { requirement: 'EMB-002', expects: 'data holds exactly one embedding per input' },
  'index-invalid': { requirement: 'EMB-003', expects: 'data[i].index is i: the embeddings come in input order' },
  // usage: compat {prompt_tokens, total_tokens}
  'usage-missing': { requirement: 'EMB-004', expects: 'usage is an object' },
  'usage-counts': { requirement: 'EMB-004', expects: 'usage.prompt_tokens and usage.total_tokens are integers >= 0, total_tokens = prompt_tokens' },
  // encoding_format base64
  'base64-not-string': { requirement: 'EMB-005', expects: 'with encoding_format base64, embedding is a string' },
  'base64-invalid': { requirement: 'EMB-005', expects: 'a base64 embedding is canonical base64 of a whole number of little-endian float32 values' },
  'base64-differs': { requirement: 'EMB-005', expects: 'a base64 embedding decodes to the float32 values of the same input answered as floats' },
  // dimensions
  'dimensions-not-honoured': { requirement: 'EMB-006', expects: 'where the server honours dimensions, every embedding has exactly that many values' },
} as const satisfies RuleTable;

export type EmbeddingsRuleCode = keyof typeof embeddingsRules;
export const embeddingsRuleCodes = Object.keys(embeddingsRules) as EmbeddingsRuleCode[];

/** The requirement a rule code decides. */
export const requirementOfEmbeddingsRule = (rule: EmbeddingsRuleCode): string => embeddingsRules[rule].requirement;

/** Every requirement some embeddings rule decides, each once, sorted. */
export const embeddingsRequirementIds: readonly string[] = [...new Set(embeddingsRuleCodes.map(requirementOfEmbeddingsRule))].sort();
