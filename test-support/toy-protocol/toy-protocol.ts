// A toy streaming API, registered only by tests: the proof that a new API is one folder plus one
// line in a protocol list. Nothing outside this folder knows it.
import type { Protocol } from '../../src/protocols/protocol.ts';
import type { MockSide } from '../../src/protocols/protocol-mock.ts';
import { TOY_ROUTE, toyRequirements, toyRules } from './toy-wire.ts';
import { toyChecker } from './toy-checker.ts';
import { toyMock } from './toy-mock.ts';
import { toySections } from './toy-section.ts';

const ids = ['TOY-001', 'TOY-002', 'TOY-003'];

export const toyProtocol: Protocol = {
  name: 'toy-stream',
  title: 'Toy stream (test-only)',
  moduleUrl: import.meta.url,
  routes: [TOY_ROUTE],
  streaming: 'optional',
  capability: { name: 'toy-stream', title: 'Toy streaming API', member: 'POST /v1/toy/generate', ids },
  requirements: toyRequirements,
  rules: toyRules,
  units: { output: 'tokens' },
  request: (intent) => ({
    route: TOY_ROUTE,
    body: { ...(intent.extraBody ?? {}), model: intent.model, prompt: intent.messages.map((m) => m.content).join('\n'), max_units: intent.maxOutputTokens, stream: intent.stream },
    sent: { api: 'toy-stream', stream: intent.stream },
  }),
  checker: toyChecker,
  outputTally() {
    let n = 0;
    let rest = '';
    return {
      feed(chunk) {
        const lines = (rest + Buffer.from(chunk).toString('latin1')).split('\n');
        rest = lines.pop() ?? '';
        n += lines.filter((l) => l.startsWith('data: {"seq"')).length;
        return n;
      },
    };
  },
  conformance: [
    {
      name: 'toy-stream',
      title: 'POST /v1/toy/generate streams events numbered from 0, ended by one done event counting them',
      ids,
      answered: 'TOY-002',
      intent: (model) => ({ model, messages: [{ role: 'user', content: 'Count to five.' }], maxOutputTokens: 8, stream: true }),
    },
  ],
  mock: toyMock as MockSide,
  resultSections: toySections,
};

/** The check worker imports this module by `moduleUrl` and reads this export. */
export const protocol = toyProtocol;
