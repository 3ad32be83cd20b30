import type { CheckDef } from '../context/check-types.ts';
import { requirementIdRange } from '../context/check-types.ts';
import type { Judge } from '../kernel/judge.ts';
import type { HttpExchange } from '../http/check-http.ts';
import { evidence, at, isInt, isRecord, describeResponse } from '../kernel/evidence.ts';
import { sharedMe } from '../requests/common-requests.ts';

// Spec, Current user: the table of fields of GET /v1/me.
const seedMembers: Record<string, readonly string[]> = {
  '': ['id', 'email', 'plan', 'usage', 'limits', 'features'],
  plan: ['id', 'label', 'renews_at'],
  usage: ['requests_this_month', 'tokens_this_month', 'spend_usd'],
  limits: ['requests_per_minute', 'tokens_per_minute', 'monthly_spend_cap_usd'],
  features: ['cloud_agents', 'ember_os', 'team_workspaces'],
};

function typed(j: Judge, ex: HttpExchange, id: string, path: string[], ok: (v: unknown) => boolean, expected: string): void {
  const v = at(ex.json, ...path);
  j.expect(id, ok(v), () => evidence(ex, `${path.join('.')} is not ${expected}`, { expected, received: v, pointer: `/${path.join('/')}` }));
}

/** Decimal places in the JSON text of a number member (0 when the member is not found). */
function decimalsInText(text: string, member: string): number {
  const m = new RegExp(`"${member}"\\s*:\\s*-?\\d+(?:\\.(\\d+))?(?:[eE][-+]?\\d+)?`).exec(text);
  return m?.[1]?.length ?? 0;
}

const isString = (v: unknown): boolean => typeof v === 'string';
const isNonNegInt = (v: unknown): boolean => isInt(v) && v >= 0;
const isNonNegNumber = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const isBool = (v: unknown): boolean => typeof v === 'boolean';

const meShape: CheckDef = {
  name: 'me-shape',
  area: 'me',
  ids: requirementIdRange('ME', 1, 23),
  title: 'GET /v1/me answers the current user with exactly the seed’s typed fields',
  async run(ctx, j) {
    const ex = await sharedMe(ctx);
    if (!j.expect('ME-001', ex.status === 200 && isRecord(ex.json), () => evidence(ex, 'GET /v1/me did not answer 200 with a JSON object', { expected: 200, received: describeResponse(ex) }))) {
      j.skipRest('the /v1/me body could not be read');
      return;
    }
    typed(j, ex, 'ME-002', ['id'], (v) => typeof v === 'string' && v.length > 0, 'a non-empty string');
    typed(j, ex, 'ME-003', ['email'], isString, 'a string');
    typed(j, ex, 'ME-004', ['email'], (v) => typeof v === 'string' && /^[^@\s]+@[^@\s]+$/.test(v), 'an e-mail address');
    typed(j, ex, 'ME-005', ['plan'], isRecord, 'an object');
    typed(j, ex, 'ME-006', ['plan', 'id'], isString, 'a string');
    typed(j, ex, 'ME-007', ['plan', 'label'], isString, 'a string');
    // Spec, Current user: "plan.renews_at | string | ISO 8601 UTC timestamp".
    typed(
      j,
      ex,
      'ME-008',
      ['plan', 'renews_at'],
      (v) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|\+00:00)$/.test(v) && !Number.isNaN(Date.parse(v)),
      'an ISO 8601 UTC date-time',
    );
    typed(j, ex, 'ME-009', ['plan', 'renews_at'], (v) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(v), 'YYYY-MM-DDTHH:MM:SSZ');
    typed(j, ex, 'ME-010', ['usage'], isRecord, 'an object');
    typed(j, ex, 'ME-011', ['usage', 'requests_this_month'], isNonNegInt, 'an integer >= 0');
    typed(j, ex, 'ME-012', ['usage', 'tokens_this_month'], isNonNegInt, 'an integer >= 0');
    typed(j, ex, 'ME-013', ['usage', 'spend_usd'], isNonNegNumber, 'a number >= 0');
    for (const member of ['spend_usd', 'monthly_spend_cap_usd']) {
      const places = decimalsInText(ex.text, member);
      j.expect('ME-014', places <= 6, () => evidence(ex, `${member} is written with ${places} decimals`, { expected: '<= 6 decimals' }));
    }
    typed(j, ex, 'ME-015', ['limits'], isRecord, 'an object');
    typed(j, ex, 'ME-016', ['limits', 'requests_per_minute'], isInt, 'an integer');
    typed(j, ex, 'ME-017', ['limits', 'tokens_per_minute'], isInt, 'an integer');
    typed(j, ex, 'ME-018', ['limits', 'monthly_spend_cap_usd'], (v) => typeof v === 'number' && Number.isFinite(v), 'a number');
    const features = at(ex.json, 'features');
    j.expect('ME-019', isRecord(features) && Object.values(features).every(isBool), () =>
      evidence(ex, 'features is not a map of booleans', { expected: '{name: boolean}', received: features, pointer: '/features' }),
    );
    typed(j, ex, 'ME-020', ['features', 'cloud_agents'], isBool, 'a boolean');
    typed(j, ex, 'ME-021', ['features', 'ember_os'], isBool, 'a boolean');
    typed(j, ex, 'ME-022', ['features', 'team_workspaces'], isBool, 'a boolean');
    const extra: string[] = [];
    for (const [path, members] of Object.entries(seedMembers)) {
      const obj = path === '' ? ex.json : at(ex.json, path);
      if (!isRecord(obj)) continue;
      for (const k of Object.keys(obj)) if (!members.includes(k)) extra.push(path === '' ? k : `${path}.${k}`);
    }
    if (extra.length === 0) j.pass('ME-023');
    else j.informational('ME-023', `members beyond the seed's table: ${extra.join(', ')}`);
  },
};

export const meChecks: CheckDef[] = [meShape];
