import type { StreamRuleCode } from '../../protocols/chat-completions/stream-rules.ts';

/**
 * The one table from the chat-completions stream checker's rule codes
 * (src/protocols/chat-completions/stream-rules.ts) to the requirement each decides. Checks
 * declare the stream requirements they judge through it (`idsOfRules`), and the grade of a
 * finding is its requirement's, from spec/requirements.yaml: nothing else names these IDs or
 * grades these findings.
 */
export const streamRuleIds = {
  'invalid-utf8': 'CHAT-STREAM-041',
  'line-too-long': 'CHAT-STREAM-005',
  'event-too-long': 'CHAT-STREAM-046',
  'json-too-deep': 'HDR-015',
  'ended-mid-event': 'CHAT-STREAM-002',
  'ignored-field': 'CHAT-STREAM-042',
  'comment-lines': 'CHAT-STREAM-032',
  'line-endings': 'CHAT-STREAM-034',
  'bom': 'CHAT-STREAM-043',
  'split-reads': 'CHAT-STREAM-035',
  'data-no-space': 'CHAT-STREAM-036',
  'event-field': 'CHAT-STREAM-037',
  'meta-only-event': 'CHAT-STREAM-033',
  'empty-data': 'CHAT-STREAM-005',
  'non-json-data': 'CHAT-STREAM-005',
  'done-missing': 'CHAT-STREAM-002',
  'done-not-exact': 'CHAT-STREAM-003',
  'data-after-done': 'CHAT-STREAM-004',
  'no-chunks': 'CHAT-STREAM-022',
  'error-before-chunks': 'CHAT-STREAM-030',
  'error-shape': 'CHAT-STREAM-031',
  'chunk-after-error': 'CHAT-STREAM-031',
  'id-invalid': 'CHAT-STREAM-007',
  'id-changed': 'CHAT-STREAM-008',
  'object-wrong': 'CHAT-STREAM-006',
  'created-invalid': 'CHAT-STREAM-009',
  'created-stale': 'CHAT-STREAM-047',
  'created-changed': 'CHAT-STREAM-010',
  'model-invalid': 'CHAT-STREAM-011',
  'choices-invalid': 'CHAT-STREAM-012',
  'choices-empty': 'CHAT-STREAM-044',
  'choice-index-invalid': 'CHAT-STREAM-013',
  'role-missing-first': 'CHAT-STREAM-014',
  'role-repeated': 'CHAT-STREAM-015',
  'delta-invalid': 'CHAT-STREAM-016',
  'finish-reason-invalid': 'CHAT-STREAM-017',
  'finish-reason-unknown': 'CHAT-STREAM-045',
  'finish-reason-key-missing': 'CHAT-STREAM-018',
  'finish-reason-count': 'CHAT-STREAM-019',
  'finish-chunk-content': 'CHAT-STREAM-020',
  'delta-after-finish': 'CHAT-STREAM-021',
  'choice-missing': 'CHAT-STREAM-039',
  'tool-index-invalid': 'TOOLS-012',
  'tool-index-gap': 'TOOLS-016',
  'tool-first-delta-incomplete': 'TOOLS-013',
  'tool-identity-changed': 'TOOLS-014',
  'tool-arguments-not-string': 'TOOLS-015',
  'tool-arguments-not-json': 'TOOLS-017',
  'tool-calls-finish-without-calls': 'TOOLS-008',
  'tool-calls-with-stop': 'TOOLS-022',
  'usage-chunk-missing': 'CHAT-STREAM-023',
  'usage-chunk-choices': 'CHAT-STREAM-023',
  'usage-chunk-multiple': 'CHAT-STREAM-023',
  'usage-chunk-not-last': 'CHAT-STREAM-024',
  'usage-non-null-interim': 'CHAT-STREAM-025',
  'usage-null-omitted': 'CHAT-STREAM-026',
  'usage-unrequested': 'CHAT-STREAM-027',
  'usage-chunk-envelope': 'CHAT-STREAM-028',
  'usage-counts': 'CHAT-STREAM-029',
} as const satisfies Record<StreamRuleCode, string>;

/** The requirement a rule code decides. */
export function requirementOfRule(rule: StreamRuleCode): string {
  return streamRuleIds[rule];
}

/** The requirement IDs the given rules decide, each once, in the order given. */
export function idsOfRules(rules: readonly StreamRuleCode[]): string[] {
  return [...new Set(rules.map((r) => streamRuleIds[r]))];
}

/** Every requirement some stream rule decides. */
export const streamRequirementIds: readonly string[] = [...new Set(Object.values(streamRuleIds))];
