// Chat completions (spec: POST /v1/chat/completions, streamed by server-sent events ending in
// data: [DONE]) as an instance of the protocol contract: the seed's core API.
import type { Protocol } from '../protocol.ts';
import type { GenerationAsk, MockSide } from '../protocol-mock.ts';
import { chatRequest, chatRoute } from './chat-request.ts';
import { streamRules } from './stream-rules.ts';
import { StreamValidator } from './stream-checker.ts';
import { judgeWholeCompletion, streamFacts } from './chat-facts.ts';
import { chatOutputTally } from './content-events.ts';
import { chatCapabilities } from './chat-capabilities.ts';
import { wholeBodyChecker } from '../whole-body.ts';
import { validateChatRequest } from './chat-validation.ts';
import { chatRenderer } from './chat-mock-render.ts';

export const chatCompletions: Protocol = {
  name: 'chat-completions',
  title: 'Chat completions',
  moduleUrl: import.meta.url,
  routes: [chatRoute],
  streaming: 'optional',
  capabilities: chatCapabilities,
  rules: streamRules,
  units: { output: 'tokens' },
  request: chatRequest,
  checker(sent, options = {}) {
    if (!sent.stream) return wholeBodyChecker(options, judgeWholeCompletion);
    const validator = new StreamValidator({ includeUsage: sent['includeUsage'] === true, ...(typeof sent['n'] === 'number' ? { n: sent['n'] } : {}), ...(options.jsonDepthChecked === true ? { jsonDepthChecked: true } : {}) });
    return {
      feed: (chunk, at) => validator.feed(chunk, at),
      end: () => {
        const r = validator.end();
        return { findings: r.findings.map((f) => ({ rule: f.rule, message: f.message, byteOffset: f.byteOffset, ...(f.pointer === undefined ? {} : { pointer: f.pointer }) })), facts: streamFacts(r) };
      },
    };
  },
  outputTally: chatOutputTally,
  // The mock's chat wire faults bend requests and answers around this route (mock-server/core/chat-faults.ts and the catalogue).
  mock: { parse: validateChatRequest, answer: { kind: 'generated', generation: (ask) => ask, renderer: chatRenderer }, faults: [] } satisfies MockSide<GenerationAsk> as MockSide,
};

/** The check worker imports this module by `moduleUrl` and reads this export. */
export const protocol = chatCompletions;
