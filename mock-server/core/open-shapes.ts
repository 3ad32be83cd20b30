import type { FaultDefinition } from './fault-catalogue.ts';

// Other shapes of GET /v1/me/usage and GET /v1/models that the seed allows ("Fields of the response: not shown"):
// other member names, a bare array, a wrapper object, Unix timestamps, a map keyed by day, idle
// days left out. Legal modes: iari discovers the shape and its seed-grounded cross-checks pass.
// Faults: the same foreign shapes with a real inconsistency (rows against /v1/me, rejected requests
// counted), which the cross-checks must find. `exercises` lists the profile requirements
// (D-HTTP-09..11) each shape deviates from: they report the deviation at their grade.

type Row = { date: string; requests: number; prompt_tokens: number; completion_tokens: number; total_tokens: number; spend_usd: number };
type Shape = 'renamed' | 'bare-array' | 'timestamps' | 'date-map' | 'sparse-date-time';

const profileShape = ['USAGE-002', 'USAGE-003', 'USAGE-004', 'USAGE-006'];

const legal = (name: string, exercises: string[], description: string): FaultDefinition => ({ name, kind: 'legal', breaks: [], exercises, description });
const f = (name: string, breaks: string[], exercises: string[], description: string): FaultDefinition => ({ name, kind: 'fault', breaks, exercises, description });

export const openShapeModes: readonly FaultDefinition[] = [
  legal('legal-usage-renamed', ['USAGE-006', 'USAGE-009'], 'Usage rows are {date, n_requests, tokens, cost_usd}: other names, and tokens without a prompt/completion split (the issue 10 server).'),
  legal('legal-usage-bare-array', profileShape, 'GET /v1/me/usage answers a bare array of {day, requests, input_tokens, output_tokens, total_tokens, spend} rows, no envelope.'),
  legal('legal-usage-timestamps', profileShape, 'Rows sit in {"usage": {"daily": [...]}}, dated by Unix seconds (timestamp), counting num_requests, prompt_tokens and completion_tokens (no total, no spend).'),
  legal('legal-usage-date-map', profileShape, 'data is an object keyed by day: {"YYYY-MM-DD": {requests, tokens: {prompt, completion}, cost}}.'),
  legal('legal-usage-sparse', [...profileShape, 'USAGE-007', 'USAGE-008'], 'Only days with activity have a row, {day: "YYYY-MM-DDT00:00:00Z", requests, tokens}; idle days are left out.'),
  legal('legal-models-extra-fields', [], "Each listed model also carries vLLM's root, parent, max_model_len and permission members, and the list OpenAI's paginated has_more, first_id and last_id: fields beyond the identifiers."),
  f('usage-renamed-requests-off', ['USAGE-010'], ['USAGE-006', 'USAGE-009'], "Renamed rows (legal-usage-renamed), and today's n_requests is one more than /v1/me counts."),
  f('usage-renamed-rejected-counted', ['USAGE-015'], ['USAGE-006', 'USAGE-009'], 'Renamed rows (legal-usage-renamed), and chat requests answered 4xx after authentication are counted as one request.'),
  f('usage-timestamps-prompt-off', ['USAGE-011'], profileShape, "Timestamped rows (legal-usage-timestamps), and today's prompt_tokens is one more than /v1/me counts."),
  f('usage-date-map-not-incremented', ['ME-024', 'USAGE-013', 'USAGE-014'], profileShape, 'Day-keyed rows (legal-usage-date-map), and completions are not counted in /v1/me or the rows.'),
];

const shapeOf: Readonly<Record<string, Shape>> = {
  'legal-usage-renamed': 'renamed',
  'usage-renamed-requests-off': 'renamed',
  'usage-renamed-rejected-counted': 'renamed',
  'legal-usage-bare-array': 'bare-array',
  'legal-usage-timestamps': 'timestamps',
  'usage-timestamps-prompt-off': 'timestamps',
  'legal-usage-date-map': 'date-map',
  'usage-date-map-not-incremented': 'date-map',
  'legal-usage-sparse': 'sparse-date-time',
};

/** The model list with members beyond the identifiers (legal-models-extra-fields), as vLLM and OpenAI's paginated lists send them. */
export function modelsWithExtraFields(data: Record<string, unknown>[]): unknown {
  const extra = data.map((m) => ({ ...m, root: m['id'], parent: null, max_model_len: 8192, permission: [{ id: `modelperm-${String(m['id'])}`, object: 'model_permission', allow_sampling: true }] }));
  return { object: 'list', data: extra, has_more: false, first_id: data[0]?.['id'] ?? null, last_id: data.at(-1)?.['id'] ?? null };
}

/** Faults of this family that count a rejected request, or leave completions uncounted (chat.ts, http-faults.ts). */
export const countsRejected = (f: ReadonlySet<string>): boolean => f.has('usage-renamed-rejected-counted');
export const leavesUncounted = (f: ReadonlySet<string>): boolean => f.has('usage-date-map-not-incremented');

function shapeIn(f: ReadonlySet<string>): Shape | undefined {
  for (const name of f) {
    const s = shapeOf[name];
    if (s !== undefined) return s;
  }
  return undefined;
}

/** The body of GET /v1/me/usage in the shape the faults ask for; undefined: the profile's shape. */
export function shapedUsageBody(rows: Row[], days: number, f: ReadonlySet<string>): unknown {
  const shape = shapeIn(f);
  if (shape === undefined) return undefined;
  const today = rows[rows.length - 1];
  if (today !== undefined) {
    if (f.has('usage-renamed-requests-off')) today.requests += 1;
    if (f.has('usage-timestamps-prompt-off')) today.prompt_tokens += 1;
  }
  switch (shape) {
    case 'renamed':
      return { object: 'list', days, data: rows.map((r) => ({ date: r.date, n_requests: r.requests, tokens: r.total_tokens, cost_usd: r.spend_usd })) };
    case 'bare-array':
      return rows.map((r) => ({ day: r.date, requests: r.requests, input_tokens: r.prompt_tokens, output_tokens: r.completion_tokens, total_tokens: r.total_tokens, spend: r.spend_usd }));
    case 'timestamps':
      return { usage: { daily: rows.map((r) => ({ timestamp: Date.parse(`${r.date}T00:00:00Z`) / 1000, num_requests: r.requests, prompt_tokens: r.prompt_tokens, completion_tokens: r.completion_tokens })) } };
    case 'date-map':
      return { object: 'usage', data: Object.fromEntries(rows.map((r) => [r.date, { requests: r.requests, tokens: { prompt: r.prompt_tokens, completion: r.completion_tokens }, cost: r.spend_usd }])) };
    case 'sparse-date-time':
      return rows.filter((r) => r.requests > 0).map((r) => ({ day: `${r.date}T00:00:00Z`, requests: r.requests, tokens: r.total_tokens }));
  }
}
