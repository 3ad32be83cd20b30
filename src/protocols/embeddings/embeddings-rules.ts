/**
 * Every rule code the embeddings response checker can report, with what the format expects (one
 * line). Codes only: the requirement each decides and its grade live in the registry
 * (src/checks/registry/embeddings-rule-ids.ts and spec/requirements.yaml).
 */
export const embeddingsRules = {
  // The envelope: compat CreateEmbeddingResponse {object: "list", data, model, usage}
  'object-wrong': 'object is "list"',
  'item-object-wrong': 'every item of data has object "embedding"',
  'data-invalid': 'data is an array of objects with index and embedding',
  'model-invalid': 'model is a non-empty string',
  'embedding-invalid': 'with encoding_format float (or none), embedding is a non-empty array of finite numbers',
  'lengths-differ': 'every embedding of one answer has the same length',
  // One per input, in input order
  'count-mismatch': 'data holds exactly one embedding per input',
  'index-invalid': 'data[i].index is i: the embeddings come in input order',
  // usage: compat {prompt_tokens, total_tokens}
  'usage-missing': 'usage is an object',
  'usage-counts': 'usage.prompt_tokens and usage.total_tokens are integers >= 0, total_tokens = prompt_tokens',
  // encoding_format base64
  'base64-not-string': 'with encoding_format base64, embedding is a string',
  'base64-invalid': 'a base64 embedding is canonical base64 of a whole number of little-endian float32 values',
  'base64-differs': 'a base64 embedding decodes to the float32 values of the same input answered as floats',
  // dimensions
  'dimensions-not-honoured': 'where the server honours dimensions, every embedding has exactly that many values',
} as const satisfies Record<string, string>;

export type EmbeddingsRuleCode = keyof typeof embeddingsRules;
export const embeddingsRuleCodes = Object.keys(embeddingsRules) as EmbeddingsRuleCode[];
