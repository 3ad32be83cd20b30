import { describe, expect, it } from 'vitest';
import { sampleLoadResult } from '../../../test-support/sample-load-result.ts';
import { judgeWholeCompletion, serverPrefillMsOf } from '../../protocols/chat-completions/chat-facts.ts';
import { Collector } from './collector.ts';
import type { RequestTiming } from '../measure/request-timer.ts';
import { buildResult } from './result-builder.ts';
import { summaryTable } from './summary.ts';

// Issue 43 item 11: "llama.cpp's per-request timings (a server-side TTFT) are ignored."
const ms = (x: number): bigint => BigInt(Math.round(x * 1e6));

function timing(seq: number, prefillMs: number | undefined): RequestTiming {
  return {
    seq, intendedNs: ms(100 + seq), sentNs: ms(100 + seq), headersNs: ms(105 + seq), endNs: ms(130 + seq), status: 200, requestId: null,
    tokenEvents: [{ atNs: ms(120 + seq), tokens: 3 }], outputTokens: 3, promptTokens: 5, tokenSource: 'usage', events: 2, error: null, abortedAtEnd: false,
    extras: { cachedTokens: null, ...(prefillMs === undefined ? {} : { serverPrefillMs: prefillMs }) },
  };
}

function resultOf(timings: RequestTiming[]): ReturnType<typeof buildResult> {
  const c = new Collector({ measureStartNs: ms(100), measureStartEpochMs: 1_700_000_000_000, openLoop: false, slos: [], shard: null });
  for (const t of timings) {
    c.onStart(t.intendedNs);
    c.onFinish(t);
  }
  const meta = { ...sampleLoadResult().meta, measureStartEpochMs: 1_700_000_000_000, measureEndEpochMs: 1_700_000_002_000 };
  return buildResult({ meta, collector: c, slos: [], shard: null });
}

describe('llama.cpp timings: the server-side TTFT beside iari\'s', () => {
  it('LOAD-SERVER: timings.prompt_ms of a whole answer (and a final stream chunk) is the server\'s prefill; anything else is none', () => {
    const body = { choices: [{ message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 1 }, timings: { prompt_n: 5, prompt_ms: 12.5, predicted_n: 1, predicted_ms: 3 } };
    expect(judgeWholeCompletion(body).facts.serverPrefillMs).toBe(12.5);
    expect(judgeWholeCompletion({ ...body, timings: undefined }).facts.serverPrefillMs).toBeUndefined();
    expect(serverPrefillMsOf({ prompt_ms: -1 })).toBeUndefined();
    expect(serverPrefillMsOf({ prompt_ms: '12' })).toBeUndefined();
  });

  it('LOAD-SERVER: the result has a server_ttft histogram from the answers that carried timings, printed beside ttft; without timings there is none', () => {
    const r = resultOf([timing(0, 4), timing(1, 6), timing(2, undefined)]);
    expect(r.metrics.server_ttft?.count).toBe(2);
    expect(r.metrics.server_ttft?.percentiles.p50).toBeGreaterThanOrEqual(3990);
    expect(r.metrics.server_ttft?.max).toBeLessThanOrEqual(6010);
    // iari's TTFT for the same answers: 20 ms from the send, the server's prefill 4-6 ms of it.
    expect(r.metrics.ttft?.percentiles.p50).toBeGreaterThanOrEqual(19_990);
    const text = summaryTable(r);
    expect(text).toMatch(/\nttft \(time to first token\).*\nserver_ttft \(the server's own: llama\.cpp timings\.prompt_ms\)/);
    const none = resultOf([timing(0, undefined)]);
    expect(none.metrics.server_ttft).toBeUndefined();
    expect(summaryTable(none)).not.toContain('server_ttft');
  });
});
