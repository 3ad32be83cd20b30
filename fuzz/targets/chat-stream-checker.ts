import fc from 'fast-check';
import { checkStream, type StreamCheckOptions, type StreamCheckResult } from '../../src/protocols/chat-completions/stream-checker.ts';
import { streamRuleCodes } from '../../src/protocols/chat-completions/stream-rules.ts';
import { recordedStreams, sseStream } from '../sse-streams.ts';
import { streamCheckerRun } from '../stream-checker-run.ts';
import type { FuzzTarget } from '../target.ts';

const rules = new Set<string>(streamRuleCodes);
const OPTIONS: StreamCheckOptions[] = [
  { nowSeconds: 1_700_000_000 },
  { nowSeconds: 1_700_000_000, includeUsage: true, n: 2, maxFindingsPerRule: 2 },
];

/** What the verdict means, whatever the reads: every finding but split-reads (which only reads can cause), without read indexes and times. */
function meaning(r: StreamCheckResult): unknown {
  return {
    findings: r.findings.filter((f) => f.rule !== 'split-reads').map(({ chunkIndex: _c, ...f }) => f),
    suppressed: r.suppressed,
    assembled: r.assembled,
    content: r.timing.contentEvents.map(({ arrivedAt: _a, chunkIndex: _c, ...e }) => e),
    reasoning: r.timing.reasoning,
  };
}

const run = streamCheckerRun({ who: 'checkStream', rules, options: OPTIONS, check: checkStream, meaning });

// Chunks as servers send them (and as they get them wrong): deltas with content, tool calls,
// refusals, reasoning, usage, errors, finish reasons, odd envelopes.
const delta = fc.record(
  {
    role: fc.constantFrom('assistant', 'user', ''),
    content: fc.oneof(fc.string({ maxLength: 12 }), fc.constant(null)),
    refusal: fc.string({ maxLength: 6 }),
    reasoning_content: fc.string({ maxLength: 6 }),
    tool_calls: fc.array(fc.record({ index: fc.integer({ min: -1, max: 2 }), id: fc.string({ maxLength: 4 }), type: fc.constant('function'), function: fc.record({ name: fc.string({ maxLength: 4 }), arguments: fc.constantFrom('{"a":', '1}', '{}', '[[[', '"x"') }, { requiredKeys: [] }) }, { requiredKeys: ['index'] }), { maxLength: 2 }),
  },
  { requiredKeys: [] },
);
const choice = fc.record({ index: fc.oneof(fc.integer({ min: 0, max: 2 }), fc.constantFrom(-1, 1.5, '0', null)), delta, finish_reason: fc.constantFrom(null, 'stop', 'length', 'tool_calls', 'content_filter', '', 'weird'), logprobs: fc.constant(null) }, { requiredKeys: ['index', 'delta'] });
const chunk = fc.oneof(
  { arbitrary: fc.record({ id: fc.constantFrom('chatcmpl-1', 'chatcmpl-2', ''), object: fc.constantFrom('chat.completion.chunk', 'chat.completion'), created: fc.constantFrom(1_700_000_000, 0, -1, 1.5), model: fc.constantFrom('m', ''), choices: fc.array(choice, { maxLength: 2 }) }, { requiredKeys: ['choices'] }).map((c) => JSON.stringify(c)), weight: 6 },
  { arbitrary: fc.record({ id: fc.constant('chatcmpl-1'), object: fc.constant('chat.completion.chunk'), created: fc.constant(1_700_000_000), model: fc.constant('m'), choices: fc.constant([]), usage: fc.record({ prompt_tokens: fc.nat(9), completion_tokens: fc.nat(9), total_tokens: fc.nat(20) }, { requiredKeys: [] }) }).map((c) => JSON.stringify(c)), weight: 1 },
  { arbitrary: fc.record({ error: fc.record({ message: fc.string({ maxLength: 8 }), type: fc.string({ maxLength: 4 }), param: fc.constant(null), code: fc.constantFrom(null, 1, 'x') }, { requiredKeys: [] }) }).map((c) => JSON.stringify(c)), weight: 1 },
  { arbitrary: fc.constantFrom('[DONE]', ' [DONE]', '[DONE] ', 'null', '[]', '{', '"x"'), weight: 1 },
);

export const chatStreamChecker: FuzzTarget = {
  name: 'chat-stream-checker',
  sources: ['src/protocols/chat-completions/stream-checker.ts', 'src/protocols/chat-completions/stream-choice-checks.ts', 'src/protocols/chat-completions/stream-envelope-checks.ts', 'src/protocols/chat-completions/stream-assembly.ts'],
  invariants: [
    'never throws on any bytes; every finding names a rule of the closed set, at a byte inside the stream, at most the kept number per rule',
    'its result serialises (JSON) and clones (what crosses to the main thread)',
    'its verdict, assembled message and content events are the same however the bytes are split into reads (split-reads aside)',
    'one input of up to 64 KiB takes at most 2 s',
  ],
  maxLen: 64 * 1024,
  timeBoundMs: 2_000,
  valid: sseStream(chunk),
  seeds: recordedStreams,
  run,
};
