import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { StreamValidator } from '../../protocols/chat-completions/stream-checker.ts';
import { streamRequirementIds } from '../../protocols/chat-completions/stream-rules.ts';
import type { HttpExchange } from '../http/check-http.ts';
import { Judge } from '../kernel/judge.ts';
import { judgeFindings } from './stream-findings.ts';
import { gradeOf } from '../registry/registry-view.ts';
import { catalog } from '../runner/catalog.ts';

const dir = fileURLToPath(new URL('../../../fixtures/streams/', import.meta.url));
const ruleIds = [...streamRequirementIds].sort();

interface Expect {
  options: { includeUsage: boolean; n: number; nowSeconds: number };
  findings: { fail: string[]; 'non-strict': string[]; informational: string[] };
}

function fakeExchange(bytes: Uint8Array): HttpExchange {
  return { method: 'POST', path: '/v1/chat/completions', status: 200, headers: {}, bytes, text: '', json: undefined, jsonError: undefined, requestId: undefined, curl: '', chunks: [{ at: 0, bytes }], durationMs: 0, sentJson: undefined, bodyError: undefined };
}

const fixtures = ['legal', 'illegal'].flatMap((kind) =>
  readdirSync(dir + kind)
    .filter((f) => f.endsWith('.sse'))
    .map((f) => ({ kind, name: f.replace(/\.sse$/, ''), path: `${dir}${kind}/${f}` })),
);

describe('stream checks on the recorded fixtures', () => {
  it('finds the recorded stream corpus', () => {
    expect(fixtures.length).toBeGreaterThan(60);
  });

  for (const fx of fixtures) {
    it(`${fx.kind}/${fx.name}: the checks report exactly the verdicts the fixture expects`, () => {
      const expected = JSON.parse(readFileSync(fx.path.replace(/\.sse$/, '.expect.json'), 'utf8')) as Expect;
      const v = new StreamValidator(expected.options);
      const bytes = new Uint8Array(readFileSync(fx.path));
      v.feed(bytes, 0n);
      const result = v.end();
      const ids = ruleIds.filter((id) => id !== 'CHAT-STREAM-035');
      const j = new Judge(ids, gradeOf);
      judgeFindings(j, [{ name: fx.name, ex: fakeExchange(bytes), result }], ids);
      const got = { fail: [] as string[], 'non-strict': [] as string[], informational: [] as string[] };
      for (const o of j.outcomes()) if (o.verdict === 'fail' || o.verdict === 'non-strict' || o.verdict === 'informational') got[o.verdict].push(o.id);
      for (const k of Object.keys(got) as (keyof typeof got)[]) got[k].sort();
      expect(got).toEqual({ fail: [...expected.findings.fail].sort(), 'non-strict': [...expected.findings['non-strict']].sort(), informational: [...expected.findings.informational].sort() });
    });
  }

  it('every requirement the stream checker can report is decided by some contract check', () => {
    const declared = new Set(catalog.flatMap((c) => c.ids));
    expect(ruleIds.filter((id) => !declared.has(id))).toEqual([]);
  });
});
