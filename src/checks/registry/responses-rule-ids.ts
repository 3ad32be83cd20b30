import type { ResponsesRuleCode } from '../../protocols/responses/responses-rules.ts';

/**
 * The one table from the Responses checkers' rule codes (src/protocols/responses/responses-rules.ts)
 * to the requirement each decides; grades are the registry's (spec/requirements.yaml).
 */
export const responsesRuleIds = {
  'body-invalid': 'RESP-001',
  'id-invalid': 'RESP-001',
  'created-at-invalid': 'RESP-001',
  'model-invalid': 'RESP-001',
  'output-invalid': 'RESP-001',
  'object-wrong': 'RESP-002',
  'item-invalid': 'RESP-003',
  'usage-missing': 'RESP-004',
  'usage-counts': 'RESP-004',
  'status-invalid': 'RESP-005',
  'incomplete-details-missing': 'RESP-005',
  'cut-as-completed': 'RESP-005',
  'output-over-bound': 'RESP-006',
  'metadata-not-echoed': 'RESP-012',
  'framing-invalid': 'RESP-STREAM-001',
  'event-invalid': 'RESP-STREAM-001',
  'created-not-first': 'RESP-STREAM-002',
  'snapshot-invalid': 'RESP-STREAM-002',
  'in-progress-missing': 'RESP-STREAM-003',
  'sequence-invalid': 'RESP-STREAM-004',
  'output-index-invalid': 'RESP-STREAM-005',
  'content-index-invalid': 'RESP-STREAM-005',
  'item-id-mismatch': 'RESP-STREAM-006',
  'item-not-done': 'RESP-STREAM-007',
  'part-not-done': 'RESP-STREAM-007',
  'text-mismatch': 'RESP-STREAM-008',
  'arguments-mismatch': 'RESP-STREAM-008',
  'terminal-missing': 'RESP-STREAM-009',
  'after-terminal': 'RESP-STREAM-010',
  'terminal-status-mismatch': 'RESP-STREAM-011',
  'terminal-output-mismatch': 'RESP-STREAM-011',
  'terminal-response-invalid': 'RESP-STREAM-011',
  'response-id-changed': 'RESP-STREAM-011',
  'terminal-usage-missing': 'RESP-STREAM-012',
  'vendor-event': 'RESP-STREAM-013',
  'done-sentinel': 'RESP-STREAM-014',
  'event-line-missing': 'RESP-STREAM-014',
  'stored-differs': 'RESP-STATE-001',
} as const satisfies Record<ResponsesRuleCode, string>;

const range = (area: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${area}-${String(i + 1).padStart(3, '0')}`);

/** The requirements of the Responses API judged where the server serves POST /v1/responses (capability responses). */
export const responsesRequirementIds: readonly string[] = [...range('RESP', 14), ...range('RESP-STREAM', 14), 'RESP-STATE-005'];
/** The requirements of stored responses, judged where the server takes previous_response_id (capability responses-state). */
export const responsesStateRequirementIds: readonly string[] = range('RESP-STATE', 7).filter((id) => id !== 'RESP-STATE-005');
