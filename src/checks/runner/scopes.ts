/**
 * What a run judges. `interface` (the default): every requirement. `openai`: what a plain
 * OpenAI-compatible server serves, without the interface's extras. Issue 43: "A plain
 * OpenAI-compatible server fails mostly on this interface's extras (/v1/me, /v1/me/usage, public
 * /v1/models)". A run in scope openai is reported as such, never as a pass of the interface.
 */
export const SCOPES = ['interface', 'openai'] as const;
export type Scope = (typeof SCOPES)[number];

/** The areas that are the interface's extras as a whole: the account routes and Receipts. */
const EXTRA_AREAS: readonly string[] = ['ME', 'USAGE', 'RCPT-CHAIN', 'RCPT-HTTP', 'RCPT-PAIR', 'RCPT-SCHEMA', 'RCPT-SIG'];

/** Requirements of other areas that read or judge an extra, each with the extra it needs. */
const EXTRA_IDS: Readonly<Record<string, string>> = {
  'AUTH-001': 'GET /v1/me',
  'AUTH-002': 'GET /v1/me/usage',
  'AUTH-004': 'a public /v1/models (OpenAI asks for a key)',
  'AUTH-005': 'GET /v1/me',
  'AUTH-012': 'GET /v1/me',
  'MODELS-016': 'a public /v1/models/{id}',
  'LIMIT-007': '/v1/me and /v1/me/usage',
  'LIMIT-008': 'the limits /v1/me reports',
  'LIMIT-009': 'the limits /v1/me reports',
  'HDR-007': 'the limits /v1/me reports',
  'CANCEL-004': 'the bill in /v1/me',
  'CANCEL-005': 'Receipts',
};

/** Why requirement `id` is out of `scope`, or undefined when the scope judges it. */
export function outOfScope(id: string, scope: Scope): string | undefined {
  if (scope === 'interface') return undefined;
  const area = id.replace(/-\d+$/, '');
  if (EXTRA_AREAS.includes(area)) return `not judged in scope openai (${area} is one of the interface's extras)`;
  const extra = EXTRA_IDS[id];
  return extra === undefined ? undefined : `not judged in scope openai (it needs ${extra}, one of the interface's extras)`;
}

/** Public routes among the extras: judged without a token too. */
const PUBLIC_EXTRAS: readonly string[] = ['AUTH-004', 'MODELS-016'];

/**
 * Why requirement `id` cannot be tested in a run that sends no token (issue 43: "the auth checks say
 * what they could not test"), or undefined when it can: authentication itself, and what belongs to
 * the token's account (/v1/me, /v1/me/usage, its limits, its bill, its Receipts).
 * Spec, Authentication 2: "Authenticated routes: /v1/me, /v1/me/usage, /v1/chat/completions".
 */
export function needsToken(id: string): string | undefined {
  if (PUBLIC_EXTRAS.includes(id)) return undefined;
  const area = id.replace(/-\d+$/, '');
  const what = area === 'AUTH' ? 'how the server treats credentials' : EXTRA_AREAS.includes(area) ? `${area}, the token's account` : EXTRA_IDS[id];
  return what === undefined ? undefined : `not tested: the run sends no token (none named with --token-env or --token-file, $IARI_TOKEN unset), and this needs one (${what})`;
}
