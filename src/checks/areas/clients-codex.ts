import type { CheckDef } from '../context/check-types.ts';
import { CLIENT_NAMES } from '../clients/client-libraries.ts';
import { clientOp, type OpResult } from '../clients/client-op.ts';
import { startClientRelay } from '../clients/client-relay.ts';
import { codexBinary, runCodexExec, type CodexRun } from '../clients/codex-cli.ts';
import { rateLimitGiveUp } from '../rate-limits/rate-limit-retry.ts';
import { responsesNotServed } from './clients-openai-responses.ts';

// Compat (Codex CLI, "Advanced configuration: custom model providers", wire_api "responses"): the
// coding agent that speaks only the Responses wire (mlx-lm PR #1207: no chat since 0.125), run as
// `codex exec` with a model provider whose base_url is the server (through iari's relay: the token
// never enters Codex's config or environment, every request is bounded and recorded). It streams
// every turn, resends the whole history with each (store false), and declares its own tools.

const client = CLIENT_NAMES.codex;
/** A refusal for length of context: OpenAI's context_length_exceeded, llama.cpp's exceed_context_size_error, vLLM's "maximum context length". */
const CONTEXT_REFUSED = /context_length_exceeded|exceed_context_size|exceeds the available context size|maximum context length/i;
export const CODEX_PROMPT = 'Reply with one short sentence saying hello. Do not use any tool.';

/**
 * The text the server streamed in output_text deltas (the SSE bytes the relay passed on, bounded):
 * set against what Codex printed, it tells a model that answered nothing from an answer Codex lost.
 */
export class StreamedText {
  private pending = '';
  private lastWasCr = false;
  text = '';
  /** Some line ended with a lone CR (legal SSE framing, WHATWG HTML §9.2.6). */
  loneCr = false;
  add(chunk: Uint8Array): void {
    for (let i = 0; i < chunk.length && !this.loneCr; i++) {
      if (this.lastWasCr && chunk[i] !== 0x0a) this.loneCr = true;
      this.lastWasCr = chunk[i] === 0x0d;
    }
    this.pending += Buffer.from(chunk).toString('utf8').replace(/\r\n?/g, '\n');
    const lines = this.pending.split('\n');
    this.pending = lines.pop() ?? '';
    if (this.pending.length > 1 << 20) this.pending = '';
    for (const line of lines) {
      if (!line.startsWith('data:') || this.text.length > 1 << 16) continue;
      try {
        const event = JSON.parse(line.slice(5)) as { type?: unknown; delta?: unknown };
        if (event.type === 'response.output_text.delta' && typeof event.delta === 'string') this.text += event.delta;
      } catch {
        // not JSON: the RESP-STREAM checks judge the stream
      }
    }
  }
}

/** What `codex exec --json` reported, judged: a completed turn whose agent message holds the answer. */
export function codexRunProblem(run: CodexRun, seconds: number, streamed = '', loneCr = false): OpResult {
  // A deadline never makes a FAIL: each request is bounded by the relay (a stalled answer is the server's, found there).
  if (run.timedOut) return { skip: `undecided: codex exec did not finish within ${seconds} s (ended; --check-timeout gives it longer); each request it sent was answered in time` };
  const failed = run.events.find((e) => e.type === 'turn.failed' || e.type === 'error');
  const said = failed?.error?.message ?? failed?.message;
  if (failed !== undefined) {
    // Codex ends a turn the server cut at max_output_tokens ("Incomplete response returned, reason: max_output_tokens"): the model's length.
    if (typeof said === 'string' && /incomplete response returned, reason: max_output_tokens/i.test(said)) return { skip: `undecided: the server ended the turn incomplete at max_output_tokens and Codex gives up on it (${said}); nothing on the wire is the server's fault` };
    // Compat (WHATWG HTML §9.2.6, CHAT-STREAM-034): CR, LF and CRLF all end an SSE line. Codex 0.171.0 reads no event
    // of a stream whose lines end with a lone CR: a legal server it cannot read is Codex's limit, reported, never a FAIL.
    if (loneCr && typeof said === 'string' && /stream disconnected before completion/.test(said)) return { skip: `undecided: the server ends its SSE lines with a lone CR, legal (WHATWG HTML §9.2.6, CHAT-STREAM-034), and Codex CLI cannot read such a stream (${said}); not the server's fault` };
    // Codex's own instructions make a prompt of some 4,700 tokens: a deployment whose context is smaller refuses it, truthfully (the model's size, not the server's fault).
    if (typeof said === 'string' && CONTEXT_REFUSED.test(said)) return { skip: `undecided: the server refused Codex's prompt as longer than the model's context (${said.slice(0, 300)}); Codex's own instructions need a context of some 5,000 tokens` };
    return { problem: `the turn failed: ${said ?? JSON.stringify(failed)}`, received: run.stderr === '' ? failed : run.stderr };
  }
  if (!run.events.some((e) => e.type === 'turn.completed')) return { problem: `codex exec ended (exit ${run.code ?? run.signal ?? 'unknown'}) without completing the turn`, expected: 'turn.completed', received: run.stderr === '' ? run.events.map((e) => e.type) : run.stderr };
  const text = run.events.filter((e) => e.type === 'item.completed' && e.item?.type === 'agent_message').map((e) => e.item?.text ?? '').join('');
  // Codex builds its answer from response.output_item.done: text the server streamed and Codex never printed is lost to the user.
  if (text === '' && streamed !== '') return { problem: 'the server streamed answer text, and Codex printed no agent message: the user never sees the answer', expected: streamed, received: run.events.map((e) => e.type) };
  if (text === '') return { skip: 'undecided: the turn completed with no agent message (the model answered no text); nothing Codex reports is the server\'s fault' };
  if (run.code !== 0) return { problem: `codex exec exited ${run.code ?? run.signal ?? 'unknown'} after a completed turn`, received: run.stderr };
  return undefined;
}

const codexExec = clientOp({
  name: 'client-codex-exec',
  id: 'CLIENT-RESP-011',
  client,
  call: 'codex exec (model provider wire_api "responses")',
  title: 'completes a turn and prints the agent\'s answer',
  async local(env) {
    const binary = codexBinary();
    if ('missing' in binary) return { skip: binary.missing };
    const notServed = await responsesNotServed(env);
    if (notServed !== undefined) return notServed;
    const streamed = new StreamedText();
    const relay = await startClientRelay(env.t, env.ctx.http.tokenForProbe(), (chunk) => streamed.add(chunk));
    try {
      // Codex's own instructions make a prompt of some 9,000 tokens: a CPU-served model may need more than the
      // check's default bound (--check-timeout); past it the operation is undecided, never failed.
      const timeoutMs = Math.max(5_000, env.ctx.checkTimeoutMs - 3_000);
      const run = await runCodexExec({ binary: binary.path, baseUrl: relay.baseUrl, key: relay.standInKey, model: env.model, prompt: CODEX_PROMPT, timeoutMs });
      const giveUp = relay.errors.map(rateLimitGiveUp).find((e) => e !== undefined);
      if (giveUp !== undefined) throw giveUp;
      return codexRunProblem(run, Math.round(timeoutMs / 1000), streamed.text, streamed.loneCr);
    } finally {
      await relay.close();
    }
  },
});

export const codexClientChecks: CheckDef[] = [codexExec];
