// GET /metrics, where the server serves it (capability metrics; docs/server-metrics.md): the text
// parses, counters never go down, and the request and token counters grow by what was served.
import { CHAT_COMPLETIONS_PATH } from '../../protocols/chat-completions/chat-request.ts';
import type { CheckDef } from '../context/check-types.ts';
import { describeResponse, evidence, at, isRecord } from '../kernel/evidence.ts';
import { chatBody, modelUnderTest } from '../requests/common-requests.ts';
import { gate } from '../requests/capability-probes.ts';
import { parseExposition, type Exposition } from '../../server-metrics/prom-text.ts';
import { indexSamples, readVocabulary } from '../../server-metrics/vocabulary.ts';
import { seriesKey } from '../../server-metrics/scraper.ts';

/** Counter series (and histogram parts) by key: what may never go down. */
function counters(e: Exposition): Map<string, number> {
  const out = new Map<string, number>();
  for (const f of e.families.values()) {
    if (f.type !== 'counter' && f.type !== 'histogram') continue;
    for (const s of f.samples) if (!s.name.endsWith('_created') && Number.isFinite(s.value)) out.set(seriesKey(s.name, s.labels), s.value);
  }
  return out;
}

export const serverMetricsCheck: CheckDef = {
  name: 'server-metrics',
  area: 'metrics',
  ids: ['METRICS-001', 'METRICS-002', 'METRICS-003'],
  title: 'GET /metrics is Prometheus text that parses, its counters never go down, and they grow by what an answered request used',
  async run(ctx, j) {
    if (!(await gate(ctx, j, 'metrics'))) return;
    // Prometheus text format 0.0.4: every line a comment, a blank or a sample.
    const before = await ctx.http.get('/metrics');
    const a = parseExposition(before.text);
    const readable = before.status === 200 && a.ok && a.issueCount === 0 && a.exposition.samples > 0;
    j.expect('METRICS-001', readable, () =>
      evidence(before, a.ok ? (a.issues[0] === undefined ? 'GET /metrics carries no sample' : `GET /metrics line ${a.issues[0].line}: ${a.issues[0].why}`) : `GET /metrics was refused whole: ${a.why}`, { expected: 'Prometheus text with at least one sample', received: describeResponse(before) }),
    );
    if (!a.ok) {
      j.skipRest('GET /metrics could not be read');
      return;
    }
    const model = await modelUnderTest(ctx);
    const answer = await ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, model, { max_tokens: 16 }));
    const after = await ctx.http.get('/metrics');
    const b = parseExposition(after.text);
    if (!b.ok || after.status !== 200) {
      j.skipRest(`the second read of GET /metrics answered ${after.status}${b.ok ? '' : `: ${b.why}`}`);
      return;
    }
    // Prometheus: a counter "can only increase or be reset to zero on restart".
    const was = counters(a.exposition);
    const down = [...counters(b.exposition)].filter(([k, v]) => (was.get(k) ?? -Infinity) > v);
    j.expect('METRICS-002', down.length === 0, () => evidence(after, `${down.length} counter(s) went down between two reads, e.g. ${down[0]?.[0] ?? ''} from ${was.get(down[0]?.[0] ?? '') ?? ''} to ${down[0]?.[1] ?? ''}`, { expected: 'no counter lower in the second read' }));
    // The counters grow by at least what this answer used (other requests may run at the same time).
    const x = readVocabulary(indexSamples(a.exposition));
    const y = readVocabulary(indexSamples(b.exposition), x.engine);
    const usage = isRecord(answer.json) ? at(answer.json, 'usage') : undefined;
    const completion = at(usage, 'completion_tokens');
    const prompt = at(usage, 'prompt_tokens');
    if (x.engine === null || answer.status !== 200 || typeof completion !== 'number') {
      j.skip('METRICS-003', x.engine === null ? 'GET /metrics carries none of the names iari maps (vLLM, SGLang, TGI, llama.cpp): its counters cannot be matched to an answer' : `the request between the reads answered ${answer.status} without usage.completion_tokens`);
      return;
    }
    const grew = (k: 'generatedTokens' | 'promptTokens' | 'requestsFinished'): number | null => {
      const p = x.counters[k];
      const q = y.counters[k];
      return p === undefined || q === undefined ? null : q - p;
    };
    const short: string[] = [];
    const generated = grew('generatedTokens');
    if (generated !== null && generated < completion) short.push(`generated tokens grew by ${generated}, the answer's usage.completion_tokens is ${completion}`);
    const prompted = grew('promptTokens');
    if (prompted !== null && typeof prompt === 'number' && prompted < prompt) short.push(`prompt tokens grew by ${prompted}, the answer's usage.prompt_tokens is ${prompt}`);
    const finished = grew('requestsFinished');
    if (finished !== null && finished < 1) short.push(`finished requests grew by ${finished} around an answered request`);
    if (generated === null && prompted === null && finished === null) {
      j.skip('METRICS-003', `the server publishes no token or request counter under ${x.engine}'s names`);
      return;
    }
    j.expect('METRICS-003', short.length === 0, () => evidence(answer, `around one answered request, ${short.join('; ')}`, { expected: 'counters grown by at least the answer\'s usage' }));
  },
};
