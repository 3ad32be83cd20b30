import type { FaultDefinition } from './fault-catalogue.ts';

// Account faults generated from tables: one per /v1/me member (missing or wrong type) and one per
// /v1/me/usage behaviour. Each changes exactly one member; `breaks` lists the IDs whose checks read
// that member (a missing object also breaks the checks of its members).

type Json = Record<string, unknown>;

interface MeFault {
  name: string;
  breaks: string[];
  description: string;
  apply: (me: Json) => void;
}

const obj = (me: Json, key: string): Json => (typeof me[key] === 'object' && me[key] !== null ? (me[key] as Json) : {});

const meTable: MeFault[] = [
  { name: 'me-id-missing', breaks: ['ME-002'], description: '/v1/me has no id member.', apply: (me) => { delete me['id']; } },
  { name: 'me-email-missing', breaks: ['ME-003', 'ME-004'], description: '/v1/me has no email member.', apply: (me) => { delete me['email']; } },
  { name: 'me-email-no-at', breaks: ['ME-004'], description: '/v1/me email has its "@" replaced by " at ".', apply: (me) => { me['email'] = String(me['email']).replace('@', ' at '); } },
  { name: 'me-plan-missing', breaks: ['ME-005', 'ME-006', 'ME-007', 'ME-008', 'ME-009'], description: '/v1/me has no plan member.', apply: (me) => { delete me['plan']; } },
  { name: 'me-plan-id-wrong-type', breaks: ['ME-006'], description: '/v1/me plan.id is a number.', apply: (me) => { obj(me, 'plan')['id'] = 3; } },
  { name: 'me-plan-label-missing', breaks: ['ME-007'], description: '/v1/me plan has no label.', apply: (me) => { delete obj(me, 'plan')['label']; } },
  { name: 'me-usage-missing', breaks: ['ME-010', 'ME-011', 'ME-012', 'ME-013'], description: '/v1/me has no usage member.', apply: (me) => { delete me['usage']; } },
  { name: 'me-tokens-wrong-type', breaks: ['ME-012'], description: '/v1/me usage.tokens_this_month is a string.', apply: (me) => { obj(me, 'usage')['tokens_this_month'] = String(obj(me, 'usage')['tokens_this_month']); } },
  { name: 'me-spend-wrong-type', breaks: ['ME-013'], description: '/v1/me usage.spend_usd is a string.', apply: (me) => { obj(me, 'usage')['spend_usd'] = String(obj(me, 'usage')['spend_usd']); } },
  { name: 'me-cap-seven-decimals', breaks: ['ME-014'], description: '/v1/me limits.monthly_spend_cap_usd is written with 7 decimals.', apply: (me) => { obj(me, 'limits')['monthly_spend_cap_usd'] = Number(obj(me, 'limits')['monthly_spend_cap_usd']) + 0.0000001; } },
  { name: 'me-limits-missing', breaks: ['ME-015', 'ME-016', 'ME-017', 'ME-018'], description: '/v1/me has no limits member.', apply: (me) => { delete me['limits']; } },
  { name: 'me-rpm-wrong-type', breaks: ['ME-016'], description: '/v1/me limits.requests_per_minute is a string.', apply: (me) => { obj(me, 'limits')['requests_per_minute'] = String(obj(me, 'limits')['requests_per_minute']); } },
  { name: 'me-tpm-fraction', breaks: ['ME-017'], description: '/v1/me limits.tokens_per_minute is not an integer (x.5).', apply: (me) => { obj(me, 'limits')['tokens_per_minute'] = Number(obj(me, 'limits')['tokens_per_minute']) + 0.5; } },
  { name: 'me-cap-wrong-type', breaks: ['ME-018'], description: '/v1/me limits.monthly_spend_cap_usd is a string.', apply: (me) => { obj(me, 'limits')['monthly_spend_cap_usd'] = String(obj(me, 'limits')['monthly_spend_cap_usd']); } },
  { name: 'me-features-missing-all', breaks: ['ME-019', 'ME-020', 'ME-021', 'ME-022'], description: '/v1/me has no features member.', apply: (me) => { delete me['features']; } },
  { name: 'me-cloud-agents-string', breaks: ['ME-019', 'ME-020'], description: '/v1/me features.cloud_agents is the string "true"/"false".', apply: (me) => { obj(me, 'features')['cloud_agents'] = String(obj(me, 'features')['cloud_agents']); } },
  { name: 'me-cloud-agents-missing', breaks: ['ME-020'], description: '/v1/me features has no cloud_agents flag.', apply: (me) => { delete obj(me, 'features')['cloud_agents']; } },
  { name: 'me-team-workspaces-missing', breaks: ['ME-022'], description: '/v1/me features has no team_workspaces flag.', apply: (me) => { delete obj(me, 'features')['team_workspaces']; } },
  { name: 'me-extra-member', breaks: ['ME-023'], description: '/v1/me carries a member beyond the seed (usage.cached_tokens_this_month).', apply: (me) => { obj(me, 'usage')['cached_tokens_this_month'] = 0; } },
  { name: 'me-id-constant', breaks: ['AUTH-012'], description: 'Every account\'s /v1/me has the same id ("user_iari").', apply: (me) => { me['id'] = 'user_iari'; } },
  { name: 'me-tokens-off-by-one', breaks: ['USAGE-011'], description: '/v1/me usage.tokens_this_month is one more than the month rows sum to.', apply: (me) => { obj(me, 'usage')['tokens_this_month'] = Number(obj(me, 'usage')['tokens_this_month']) + 1; } },
  // Issue 10: /v1/me "usage so far" that never grows after completions (the daily rows still do).
  { name: 'me-usage-frozen', breaks: ['ME-024', 'USAGE-010', 'USAGE-011', 'USAGE-012', 'USAGE-014'], description: '/v1/me usage never grows: requests_this_month, tokens_this_month and spend_usd stay 0 while completions are served and the daily rows count them.', apply: (me) => { Object.assign(obj(me, 'usage'), { requests_this_month: 0, tokens_this_month: 0, spend_usd: 0 }); } },
  { name: 'me-spend-off-by-cent', breaks: ['USAGE-012'], description: '/v1/me usage.spend_usd is 0.01 more than the month rows sum to.', apply: (me) => { obj(me, 'usage')['spend_usd'] = Math.round((Number(obj(me, 'usage')['spend_usd']) + 0.01) * 1e6) / 1e6; } },
];

export function applyMeFaults(me: Json, f: ReadonlySet<string>): void {
  for (const x of meTable) if (f.has(x.name)) x.apply(me);
}

export const accountFaults: readonly FaultDefinition[] = [
  { name: 'spend-refunded', kind: 'fault', breaks: ['ME-025'], description: 'A completion subtracts its cost from the spend instead of adding it (tokens and requests still count).' },
  ...meTable.map(({ name, breaks, description }): FaultDefinition => ({ name, kind: 'fault', breaks, description })),
];
