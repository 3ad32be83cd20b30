import type { CheckDef } from '../context/check-types.ts';
import { requirementIds } from '../context/check-types.ts';
import { evidence, describeResponse } from '../kernel/evidence.ts';
import { chatBody, errorOf, modelUnderTest, unknownModelId } from '../requests/common-requests.ts';
import { toolBody } from '../requests/tool-requests.ts';
import { gate, offers } from '../requests/capability-probes.ts';
import { breaksMust, checkExchange, judgeFindings } from '../wire/stream-findings.ts';
import { checkedStreams } from '../requests/checked-streams.ts';
import { failAfterEventsHeader } from '../http/mock-admin.ts';
import { sdkStream as sdkStreamed } from '../clients/sdk-ops.ts';
import { prepareClientProcess } from '../clients/client-process.ts';
import { at } from '../kernel/evidence.ts';
import { idsOfRules, requirementOfRule } from '../../protocols/chat-completions/stream-rules.ts';
import { toMessage, type AssembledChoice } from '../../protocols/chat-completions/stream-assembly.ts';
import { CHAT_COMPLETIONS_PATH } from '../../protocols/chat-completions/chat-request.ts';

const ids = (...n: number[]): string[] => requirementIds('CHAT-STREAM', ...n);
const ERROR_BEFORE_CHUNKS = requirementOfRule('error-before-chunks');
const IN_STREAM_ERROR = requirementOfRule('error-shape');
const CHOICE_MISSING = requirementOfRule('choice-missing');

const framing: CheckDef = {
  name: 'chat-stream-framing',
  area: 'chat-stream',
  ids: [...ids(1), ...idsOfRules(['done-missing', 'ended-mid-event', 'done-not-exact', 'data-after-done', 'non-json-data', 'empty-data', 'line-too-long', 'no-chunks', 'meta-only-event', 'event-field', 'invalid-utf8'])],
  title: 'stream true answers a valid UTF-8 text/event-stream with JSON chunks, at least one chunk, no meta-only or named events, ended by exactly one [DONE]',
  async run(ctx, j) {
    const streams = await checkedStreams(ctx);
    for (const s of streams) {
      const ct = s.ex.headers['content-type'] ?? '';
      // Spec, chat completions: "Response, stream true: server-sent events".
      j.expect('CHAT-STREAM-001', s.ex.status === 200 && /^text\/event-stream\b/i.test(ct), () =>
        evidence(s.ex, `${s.name}: not answered as text/event-stream`, { expected: 'text/event-stream', received: `${s.ex.status} ${ct}` }),
      );
    }
    judgeFindings(j, streams, j.ids.filter((id) => id !== 'CHAT-STREAM-001'));
  },
};

const envelope: CheckDef = {
  name: 'chat-stream-envelope',
  area: 'chat-stream',
  ids: idsOfRules(['object-wrong', 'id-invalid', 'id-changed', 'created-invalid', 'created-changed', 'model-invalid', 'choices-invalid', 'choice-index-invalid', 'choices-empty', 'created-stale']),
  title: 'every chunk is a chat.completion.chunk with one stable non-empty id, one created in seconds, a model and a choices array with stable indexes',
  async run(ctx, j) {
    judgeFindings(j, await checkedStreams(ctx), j.ids);
  },
};

const deltas: CheckDef = {
  name: 'chat-stream-deltas',
  area: 'chat-stream',
  ids: idsOfRules(['role-missing-first', 'role-repeated', 'delta-invalid', 'finish-reason-invalid', 'finish-reason-key-missing', 'finish-reason-count', 'finish-chunk-content', 'delta-after-finish', 'choice-missing', 'finish-reason-unknown']),
  title: 'each choice starts with role assistant once, carries string content, finishes exactly once with a known finish_reason and an empty delta, and n=2 streams both choices',
  async run(ctx, j) {
    await gate(ctx, j, 'n', [CHOICE_MISSING]);
    const streams = await checkedStreams(ctx);
    judgeFindings(j, streams, j.ids.filter((id) => !j.has(id)));
    const two = streams.find((s) => s.name === 'stream with n=2');
    if (two !== undefined) {
      // Roles and finish reasons per choice are CHAT-STREAM-014/019's; this judges that both choices stream.
      const indexes = two.result.assembled.choices.map((c) => c.index);
      if (JSON.stringify(indexes) !== '[0,1]') j.violated(CHOICE_MISSING, 
        evidence(two.ex, 'with n=2 the stream did not carry choices 0 and 1', { expected: [0, 1], received: indexes }));
    }
  },
};

const usage: CheckDef = {
  name: 'chat-stream-usage',
  area: 'chat-stream',
  ids: idsOfRules(['usage-chunk-missing', 'usage-chunk-choices', 'usage-chunk-multiple', 'usage-chunk-not-last', 'usage-non-null-interim', 'usage-null-omitted', 'usage-unrequested', 'usage-chunk-envelope', 'usage-counts']),
  title: 'include_usage adds exactly one last usage chunk with choices [] and consistent totals, and no usage is sent unless requested',
  async run(ctx, j) {
    await gate(ctx, j, 'stream-usage');
    judgeFindings(j, await checkedStreams(ctx), j.ids.filter((id) => !j.has(id)));
  },
};

const errorBeforeStreaming: CheckDef = {
  name: 'chat-stream-error-before-streaming',
  area: 'chat-stream',
  ids: [ERROR_BEFORE_CHUNKS],
  title: 'a stream request the server rejects answers a 4xx status with an error body, never a 200 event stream',
  async run(ctx, j) {
    const model = await modelUnderTest(ctx);
    const probes = [
      { what: 'unknown model', body: chatBody(ctx, unknownModelId(ctx), { stream: true }) },
      { what: 'empty messages', body: { model, messages: [], stream: true } },
    ];
    // An error event sent inside a 200 stream before any chunk, in the run's successful streams too.
    judgeFindings(j, await checkedStreams(ctx), [ERROR_BEFORE_CHUNKS]);
    for (const p of probes) {
      const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, p.body);
      const e = errorOf(ex);
      j.expect(ERROR_BEFORE_CHUNKS, ex.status >= 400 && e !== undefined && !/^text\/event-stream/i.test(ex.headers['content-type'] ?? ''), () =>
        evidence(ex, `a stream request with ${p.what} was not refused with a status and an error body`, { expected: '4xx + {"error":{...}}', received: describeResponse(ex) }),
      );
    }
  },
};

const errorDuringStreaming: CheckDef = {
  name: 'chat-stream-error-during-streaming',
  area: 'chat-stream',
  ids: [IN_STREAM_ERROR],
  title: 'a failure after the first chunk is sent as an error event and the stream then ends',
  async run(ctx, j) {
    const streams = await checkedStreams(ctx);
    const header = failAfterEventsHeader(ctx, 3);
    if (header === undefined) {
      // A mid-stream failure cannot be provoked on a real server: judge the in-stream errors the run's streams carried.
      judgeFindings(j, streams, [IN_STREAM_ERROR]);
      return;
    }
    const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, await modelUnderTest(ctx), { stream: true }), { headers: header });
    const result = checkExchange(ex);
    judgeFindings(j, [...streams, { name: 'stream failing after 3 events', ex, result }], [IN_STREAM_ERROR]);
    if (result.assembled.error === undefined) {
      j.violated(IN_STREAM_ERROR, evidence(ex, 'the stream failed mid-way but carried no error event', { expected: 'data: {"error":{...}}', received: 'no error event' }));
    }
  },
};

const legalFraming: CheckDef = {
  name: 'chat-stream-legal-framing',
  area: 'chat-stream',
  ids: idsOfRules(['comment-lines', 'line-endings', 'data-no-space', 'ignored-field', 'bom']),
  title: 'keep-alive comments, CRLF or lone-CR line endings, data: without a space, ignored fields (unknown names, a non-digit retry, NUL in id) and a leading BOM are read as the SSE standard says',
  async run(ctx, j) {
    // SSE standard: "If value starts with a U+0020 SPACE character, remove it" - the space is optional.
    judgeFindings(j, await checkedStreams(ctx), j.ids);
  },
};

const reassembly: CheckDef = {
  name: 'chat-stream-reassembly',
  area: 'chat-stream',
  ids: idsOfRules(['split-reads']),
  title: 'events and UTF-8 characters split across reads are reassembled, and the fragmentation is recorded',
  async run(ctx, j) {
    // Conformance anchors §2 #23: "Events split across TCP reads or in the middle of a UTF-8 character: the harness must reassemble them."
    // Each stream is read as its bytes arrived; a split is recorded (informational), which legal modes such as tiny writes provoke.
    judgeFindings(j, await checkedStreams(ctx), j.ids);
  },
};

interface ComparedMessage {
  content: string;
  tool_calls: { type: unknown; name: unknown; arguments: unknown }[];
  finish_reason: unknown;
}

/** The parts of a non-streamed choice CHAT-STREAM-040 compares; undefined when it has no message to compare (CHAT-011's). */
function completionMessage(json: unknown): ComparedMessage | undefined {
  const choice = at(json, 'choices', 0);
  const message = at(choice, 'message');
  const content = at(message, 'content');
  if (typeof content !== 'string' && content !== null) return undefined;
  const calls = at(message, 'tool_calls');
  return {
    content: content ?? '',
    tool_calls: (Array.isArray(calls) ? calls : []).map((c: unknown) => ({ type: at(c, 'type'), name: at(c, 'function', 'name'), arguments: at(c, 'function', 'arguments') })),
    finish_reason: at(choice, 'finish_reason'),
  };
}

function streamedMessage(choice: AssembledChoice): ComparedMessage {
  const m = toMessage(choice);
  return {
    content: m.content ?? '',
    tool_calls: (m.tool_calls ?? []).map((c) => ({ type: c.type, name: c.function.name, arguments: c.function.arguments })),
    finish_reason: choice.finishReason,
  };
}

function firstDifference(x: string, y: string): string {
  let k = 0;
  while (k < x.length && x[k] === y[k]) k += 1;
  return `at character ${k}: ${JSON.stringify(x.slice(Math.max(0, k - 10), k + 10))} vs ${JSON.stringify(y.slice(Math.max(0, k - 10), k + 10))}`;
}

const matchesCompletion: CheckDef = {
  name: 'chat-stream-matches-completion',
  area: 'chat-stream',
  ids: ids(40),
  title: 'the streamed message equals the non-streamed answer to the same seeded request: content, tool calls and finish_reason',
  async run(ctx, j) {
    const model = await modelUnderTest(ctx);
    // The same request with the run's seed, once whole and once streamed: a text answer and a forced tool call.
    // seed and max_completion_tokens are capabilities: sent only where the server offers them.
    const seeded = (await offers(ctx, 'seed')) ? { seed: ctx.seed } : {};
    const bounded = (await offers(ctx, 'max-completion-tokens')) ? { max_completion_tokens: 48 } : {};
    const pairs = [
      { name: 'seeded text request', body: chatBody(ctx, model, { ...seeded, ...bounded }) },
      { name: 'seeded forced tool call', body: await toolBody(ctx, model, seeded) },
    ];
    let compared = 0;
    for (const p of pairs) {
      const full = await ctx.http.post(CHAT_COMPLETIONS_PATH, p.body);
      const streamEx = await ctx.http.post(CHAT_COMPLETIONS_PATH, { ...p.body, stream: true });
      if (streamEx.status !== 200 || full.status !== 200) {
        j.skip('CHAT-STREAM-040', `${p.name}: the seeded pair was not answered (${full.status}, ${streamEx.status}; CHAT-019 judges seed)`);
        continue;
      }
      const result = checkExchange(streamEx);
      const streamed = result.assembled.choices[0];
      if (breaksMust(result) || streamed === undefined) {
        j.skip('CHAT-STREAM-040', `${p.name}: the stream breaks the format (judged by the other stream checks), so its message is not compared`);
        continue;
      }
      const expected = completionMessage(full.json);
      if (expected === undefined) {
        j.skip('CHAT-STREAM-040', `${p.name}: the non-streamed answer has no message content to compare (CHAT-011)`);
        continue;
      }
      compared += 1;
      const received = streamedMessage(streamed);
      // Content null and "" both mean "no text" (conformance anchors §2 #26), so they compare equal.
      const diffs: string[] = [];
      if (expected.content !== received.content) diffs.push(`content differs ${firstDifference(expected.content, received.content)}`);
      if (JSON.stringify(expected.tool_calls) !== JSON.stringify(received.tool_calls)) diffs.push('tool calls differ');
      if (expected.finish_reason !== received.finish_reason) diffs.push(`finish_reason ${JSON.stringify(expected.finish_reason)} vs streamed ${JSON.stringify(received.finish_reason)}`);
      if (diffs.length > 0) {
        j.violated('CHAT-STREAM-040', evidence(streamEx, `${p.name}: the streamed message differs from the non-streamed answer to the same seeded request (${diffs.join('; ')})`, { expected, received }));
      }
    }
    // A difference outranks this pass, and a compared pair outranks a skipped one.
    if (compared > 0) j.pass('CHAT-STREAM-040');
  },
};

export const chatStreamSdkCheck: CheckDef = {
  name: 'chat-stream-openai-sdk',
  area: 'chat-stream',
  ids: ids(38),
  title: 'the official openai SDK iterates the stream to its end without throwing',
  // openai-node runs in iari's client process (sdk-ops.ts), started with the run.
  prepare: prepareClientProcess,
  run: sdkStreamed,
};

export const chatStreamChecks: CheckDef[] = [framing, envelope, deltas, usage, errorBeforeStreaming, errorDuringStreaming, legalFraming, reassembly, chatStreamSdkCheck, matchesCompletion];
