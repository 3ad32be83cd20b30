import { describe, expect, it } from 'vitest';
import { codexRunProblem, StreamedText } from './clients-codex.ts';
import type { CodexRun } from '../clients/codex-cli.ts';

const run = (events: CodexRun['events'], extra: Partial<CodexRun> = {}): CodexRun => ({ code: 0, signal: null, events, stderr: '', timedOut: false, ...extra });
const answered = [{ type: 'thread.started' }, { type: 'turn.started' }, { type: 'item.completed', item: { type: 'agent_message', text: 'Hello there.' } }, { type: 'turn.completed' }];

describe('codex exec judged on the server, not the model', () => {
  it('CLIENT-RESP-011: a completed turn with an agent message passes; a failed turn is the server\'s, in Codex\'s words', () => {
    expect(codexRunProblem(run(answered), 85)).toBeUndefined();
    expect(codexRunProblem(run([{ type: 'turn.started' }, { type: 'turn.failed', error: { message: 'stream disconnected before completion: stream closed before response.completed' } }], { code: 1 }), 85)).toMatchObject({ problem: 'the turn failed: stream disconnected before completion: stream closed before response.completed' });
    expect(codexRunProblem(run([{ type: 'turn.started' }], { code: 1, stderr: 'boom' }), 85)).toMatchObject({ problem: expect.stringMatching(/without completing the turn/), received: 'boom' });
  });

  it('CLIENT-RESP-011: a deadline or a turn ended incomplete at max_output_tokens is undecided, never a FAIL', () => {
    expect(codexRunProblem(run([{ type: 'turn.started' }], { timedOut: true, code: null, signal: 'SIGKILL' }), 85)).toEqual({ skip: expect.stringMatching(/^undecided: codex exec did not finish within 85 s/) });
    expect(codexRunProblem(run([{ type: 'turn.failed', error: { message: 'Incomplete response returned, reason: max_output_tokens' } }], { code: 1 }), 85)).toEqual({ skip: expect.stringMatching(/^undecided: the server ended the turn incomplete/) });
    expect(codexRunProblem(run([{ type: 'turn.failed', error: { message: 'Incomplete response returned, reason: content_filter' } }], { code: 1 }), 85)).toMatchObject({ problem: expect.any(String) });
    // llama-server with a 2,048-token context, observed in the engines tier.
    const tooLong = '{"error":{"code":400,"message":"request (4688 tokens) exceeds the available context size (2048 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":4688,"n_ctx":2048}}';
    expect(codexRunProblem(run([{ type: 'error', message: tooLong }, { type: 'turn.failed', error: { message: tooLong } }], { code: 1 }), 85)).toEqual({ skip: expect.stringMatching(/^undecided: the server refused Codex's prompt as longer than the model's context/) });
    expect(codexRunProblem(run([{ type: 'turn.failed', error: { message: '{"error":{"message":"Missing required parameter: \'tools[0].function\'."}}' } }], { code: 1 }), 85)).toMatchObject({ problem: expect.stringMatching(/tools\[0\]\.function/) });
  });

  it('CLIENT-RESP-011: no agent message is the model\'s unless the server streamed text Codex never printed', () => {
    const silent = run([{ type: 'turn.started' }, { type: 'turn.completed' }]);
    expect(codexRunProblem(silent, 85)).toEqual({ skip: expect.stringMatching(/^undecided: the turn completed with no agent message/) });
    expect(codexRunProblem(silent, 85, 'Hello there.')).toMatchObject({ problem: expect.stringMatching(/printed no agent message/), expected: 'Hello there.' });
  });

  it('CLIENT-RESP-011: a stream Codex cannot read because its lines end with a lone CR (legal SSE) is undecided; the same failure on LF lines is the server\'s', () => {
    const cut = run([{ type: 'turn.failed', error: { message: 'stream disconnected before completion: stream closed before response.completed' } }], { code: 1 });
    expect(codexRunProblem(cut, 85, '', true)).toEqual({ skip: expect.stringMatching(/^undecided: the server ends its SSE lines with a lone CR/) });
    expect(codexRunProblem(cut, 85, '', false)).toMatchObject({ problem: expect.stringMatching(/stream disconnected before completion/) });
    const cr = new StreamedText();
    cr.add(new TextEncoder().encode('data: {"type":"response.output_text.delta","delta":"Hi"}\r'));
    cr.add(new TextEncoder().encode('\rdata: {"type":"response.completed"}\r\r'));
    expect([cr.loneCr, cr.text]).toEqual([true, 'Hi']);
    const crlf = new StreamedText();
    crlf.add(new TextEncoder().encode('data: {"type":"response.output_text.delta","delta":"Hi"}\r'));
    crlf.add(new TextEncoder().encode('\n\r\n'));
    expect([crlf.loneCr, crlf.text]).toEqual([false, 'Hi']);
  });

  it('CLIENT-RESP-011: the relayed bytes give the streamed text, across chunk boundaries, and skip what is not JSON', () => {
    const s = new StreamedText();
    const sse = 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"Hel"}\n\n: keep-alive\ndata: not json\n\ndata: {"type":"response.output_text.delta","delta":"lo"}\n\ndata: {"type":"response.completed"}\n\n';
    const bytes = new TextEncoder().encode(sse);
    for (let i = 0; i < bytes.length; i += 7) s.add(bytes.subarray(i, i + 7));
    expect(s.text).toBe('Hello');
  });
});
