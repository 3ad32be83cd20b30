/**
 * Realistic sample ConformanceReports for tests and previews, built from the real requirement
 * registry (spec/requirements.yaml): every registered requirement gets a result, with a seeded
 * mix of verdicts, failures that carry everything a reader needs (expected/received, byte
 * offset, x-request-id, a curl line with $IARI_TOKEN), and 90 days of account usage.
 */
import { loadRequirements, type Requirement } from '../src/checks/registry/requirements-registry.ts';
import { capabilityTable } from '../src/checks/registry/capabilities.ts';
import type { Failure, RequirementResult, UsageDay, Verdict } from '../src/checks/kernel/verdicts.ts';
import type { ConformanceReport } from '../src/checks/runner/conformance-report.ts';
import { verdicts } from '../src/checks/kernel/verdicts.ts';
import { seededRandom } from '../src/seeded-random.ts';
import { CHAT_COMPLETIONS_PATH } from '../src/protocols/chat-completions/chat-request.ts';

function hex(rand: () => number, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += Math.floor(rand() * 16).toString(16);
  return out;
}

export interface SampleOptions {
  seed?: number;
  /** Share of judged requirements that fail (default 0.06). */
  failRate?: number;
  /** Requirements: default the real registry. */
  requirements?: readonly Requirement[];
  /** The last day of usage (UTC date), default 2026-11-21. */
  today?: string;
  usageDays?: number;
  /** Report usage as unavailable instead of days. */
  usageUnavailable?: string;
  baseUrl?: string;
}

function failureFor(req: Requirement, rand: () => number): Failure {
  const requestId = `req_${hex(rand, 24)}`;
  const stream = req.area === 'CHAT-STREAM';
  const path = req.area.startsWith('RCPT') ? '/v1/receipts' : req.area === 'MODELS' ? '/v1/models' : req.area === 'USAGE' ? '/v1/me/usage?days=30' : req.area === 'ME' ? '/v1/me' : CHAT_COMPLETIONS_PATH;
  const body = path === CHAT_COMPLETIONS_PATH ? ` -H 'Content-Type: application/json' -d '{"model":"iari-small","stream":${stream},"messages":[{"role":"user","content":"Say hi"}]}'` : '';
  const curl = `curl -sS -N 'http://127.0.0.1:8787${path}' -H "Authorization: Bearer $IARI_TOKEN"${body}`;
  const base: Failure = { message: `${req.title}: not met`, requestId, curl };
  if (stream) {
    return { ...base, message: 'stream ended without the [DONE] sentinel', expected: 'data: [DONE]', received: 'end of stream', byteOffset: 1000 + Math.floor(rand() * 4000) };
  }
  if (req.area === 'ERR' || req.area === 'AUTH') {
    return { ...base, message: 'error body is not {"error":{message,type,param,code}}', expected: { error: { message: 'string', type: 'string', param: 'string|null', code: 'string|null' } }, received: { detail: 'Unauthorized <html>' }, pointer: '/error' };
  }
  if (req.area === 'USAGE' || req.area === 'ME') {
    return { ...base, message: "today's usage row did not grow by the request's usage", expected: 1843, received: 1811, pointer: '/data/89/total_tokens' };
  }
  if (req.area === 'HDR') return { ...base, message: 'x-request-id header does not match req_<24+ hex>', expected: 'req_<24+ hex>', received: 'abc-123' };
  return { ...base, expected: req.expectation, received: 'a different value' };
}

function usageDays(rand: () => number, today: string, count: number): UsageDay[] {
  const end = Date.parse(`${today}T00:00:00Z`);
  const days: UsageDay[] = [];
  for (let i = count - 1; i >= 0; i--) {
    const t = end - i * 86_400_000;
    const dow = new Date(t).getUTCDay();
    const idle = dow === 0 || dow === 6 ? rand() < 0.7 : rand() < 0.12;
    const requests = idle ? 0 : Math.floor(5 + rand() * 120 * (1 + Math.sin(i / 9)));
    const prompt = requests * Math.floor(40 + rand() * 80);
    const completion = requests * Math.floor(20 + rand() * 200);
    days.push({
      date: new Date(t).toISOString().slice(0, 10),
      requests,
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      spend_usd: Math.round((prompt * 0.15 + completion * 0.6) / 10) / 100_000,
    });
  }
  return days;
}

function compareIds(a: string, b: string): number {
  const area = (id: string) => id.replace(/-\d+$/, '');
  const num = (id: string) => Number(/(\d+)$/.exec(id)?.[1] ?? 0);
  return area(a) < area(b) ? -1 : area(a) > area(b) ? 1 : num(a) - num(b);
}

export function sampleConformanceReport(options: SampleOptions = {}): ConformanceReport {
  const rand = seededRandom(options.seed ?? 7);
  const requirements = [...(options.requirements ?? loadRequirements())].sort((a, b) => compareIds(a.id, b.id));
  const failRate = options.failRate ?? 0.06;
  const results: RequirementResult[] = requirements.map((req, i) => {
    const base = {
      id: req.id,
      area: req.area,
      grade: req.grade,
      title: req.title,
      checks: [`${req.id}: ${req.title}`],
      durationMs: Math.floor(rand() * 400),
    };
    if (req.optional === 'limits') return { ...base, checks: [], durationMs: 0, verdict: 'skipped', reason: 'rate-limit checks run only with --include limits' };
    if (i % 37 === 36) return { ...base, checks: [], durationMs: 0, verdict: 'skipped', reason: 'no check exercises this requirement' };
    const roll = rand();
    if (roll < failRate) {
      const failures = [failureFor(req, rand)];
      if (rand() < 0.3) failures.push(failureFor(req, rand));
      return req.grade === 'MUST' ? { ...base, verdict: 'fail', failures } : { ...base, verdict: 'non-strict', failures };
    }
    if (req.grade === 'INFO') return { ...base, verdict: 'informational', note: `observed: ${req.expectation.slice(0, 80)}` };
    if (roll < failRate * 1.6 && req.grade === 'SHOULD') return { ...base, verdict: 'non-strict', failures: [failureFor(req, rand)] };
    return { ...base, verdict: 'pass' };
  });
  const summary = Object.fromEntries(verdicts.map((v) => [v, 0])) as Record<Verdict, number>;
  for (const r of results) summary[r.verdict]++;
  const unexercised = results.filter((r) => r.verdict === 'skipped' && r.reason === 'no check exercises this requirement').map((r) => r.id);
  const today = options.today ?? '2026-11-21';
  return {
    tool: { name: 'iari', version: '0.1.0' },
    run: {
      id: '20261121T093000Z-5a3c9e',
      startedAt: `${today}T09:30:00.000Z`,
      durationMs: 18_432,
      baseUrl: options.baseUrl ?? 'http://127.0.0.1:8787/v1',
      target: 'bundled-mock',
      seed: options.seed ?? 7,
      grade: 'all',
      profile: 'default',
      only: [],
      skip: [],
      include: [],
    },
    summary: { ...summary, total: results.length },
    results,
    coverage: { exercised: results.length - unexercised.length, registry: results.length, unexercised },
    usage: options.usageUnavailable !== undefined ? { unavailable: options.usageUnavailable } : { days: usageDays(rand, today, options.usageDays ?? 90) },
    // A server with JSON mode declared (--expect json-object) but ignored, as in the capability table of report.html.
    capabilities: capabilityTable(
      {
        'json-object': { status: 'ignored', detail: 'response_format json_object: the content is plain text ("Hello there")' },
        'json-schema': { status: 'refused', detail: "response_format json_schema answered 400: Unrecognized request argument supplied: response_format" },
        'stream-usage': { status: 'honoured', detail: 'stream_options.include_usage: a chunk carried usage' },
        'tool-choice': { status: 'broken', detail: 'a named tool_choice called another function' },
        reasoning: { status: 'honoured', detail: 'model r1 streams delta.reasoning_content', model: 'r1' },
        'model-retrieve': { status: 'absent', detail: 'GET /v1/models/m answered 404' },
      },
      ['json-object'],
    ),
  };
}

/**
 * A hand-built four-requirement report, one result per verdict that files and summaries treat
 * differently: AUTH-001 pass, AUTH-006 MUST fail (its message and curl line carry `secret`),
 * CHAT-012 SHOULD non-strict ("refusal missing"), LIMIT-001 skipped.
 */
export function tinyConformanceReport(secret: string): ConformanceReport {
  return {
    tool: { name: 'iari', version: '0.1.0' },
    run: { id: 'r1', startedAt: '2026-11-21T00:00:00.000Z', durationMs: 10, baseUrl: 'http://127.0.0.1:1/v1', target: 'external', seed: 1, grade: 'all', profile: 'default', only: [], skip: [], include: [] },
    summary: { pass: 1, fail: 1, 'non-strict': 1, informational: 0, skipped: 1, known: 0, undecided: 0, total: 4 },
    results: [
      { id: 'AUTH-001', area: 'AUTH', grade: 'MUST', title: 'a', checks: ['AUTH-001: a'], durationMs: 1, verdict: 'pass' },
      { id: 'AUTH-006', area: 'AUTH', grade: 'MUST', title: 'b', checks: ['AUTH-006: b'], durationMs: 1, verdict: 'fail', failures: [{ message: `echoed ${secret}`, requestId: 'req_1', curl: `curl -H "authorization: Bearer ${secret}"` }] },
      { id: 'CHAT-012', area: 'CHAT', grade: 'SHOULD', title: 'c', checks: ['CHAT-012: c'], durationMs: 1, verdict: 'non-strict', failures: [{ message: 'refusal missing' }] },
      { id: 'LIMIT-001', area: 'LIMIT', grade: 'SHOULD', title: 'd', checks: [], durationMs: 0, verdict: 'skipped', reason: 'run with --include limits' },
    ],
    coverage: { exercised: 3, registry: 4, unexercised: ['LIMIT-001'] },
    usage: { unavailable: 'n/a' },
  };
}
