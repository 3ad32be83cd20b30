// The toy API's wire (test-only; it proves a new API is one folder plus one list line). POST
// /v1/toy/generate takes {model, prompt, max_units, stream}; a whole answer is {text, units,
// input_units}; a stream is `data: {"seq":k,"text":"..."}` events counted from 0, ended by one
// `data: {"done":true,"units":N,"input_units":M}` event.
import type { RuleTable } from '../../src/protocols/protocol.ts';

export const TOY_ROUTE = { method: 'POST', path: '/toy/generate' } as const;

export const toyRules = {
  'seq-gap': { requirement: 'TOY-001', expects: 'stream events are numbered seq 0, 1, 2, ... with no gap' },
  'no-done': { requirement: 'TOY-002', expects: 'a stream ends with exactly one done event, and nothing follows it' },
  'not-json': { requirement: 'TOY-002', expects: 'every event is a JSON object' },
  'units-mismatch': { requirement: 'TOY-003', expects: "the done event's units count the text events" },
} as const satisfies RuleTable;

export type ToyRule = keyof typeof toyRules;

/** The toy's requirements: they live with it (a shipped API keeps its own in spec/requirements.yaml). */
export const toyRequirements = {
  areas: ['TOY'],
  list: [
    { id: 'TOY-001', area: 'TOY', title: 'Toy stream events are numbered from 0 without a gap', source: 'compat', ref: 'test-support/toy-protocol/toy-wire.ts', grade: 'MUST', expectation: 'seq is 0, 1, 2, ... in arrival order', rationale: 'a toy client reassembles the text by seq and drops what it cannot place' },
    { id: 'TOY-002', area: 'TOY', title: 'A toy stream ends with one done event', source: 'compat', ref: 'test-support/toy-protocol/toy-wire.ts', grade: 'MUST', expectation: 'the last event is {"done": true, ...}, once', rationale: 'a toy client waits for done and never returns without it' },
    { id: 'TOY-003', area: 'TOY', title: 'The done event counts the text events', source: 'compat', ref: 'test-support/toy-protocol/toy-wire.ts', grade: 'SHOULD', expectation: 'done.units is the number of text events', rationale: 'a toy client bills by done.units and survives a wrong count' },
  ],
} as const;
