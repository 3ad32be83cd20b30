// What the mock does when a client goes away before its answer ended (docs/mock-server.md, Cancellation),
// and the faults that break it, one requirement each (spec/requirements.yaml CANCEL-*).
import type { FaultDefinition } from './fault-catalogue.ts';

const f = (name: string, breaks: string[], description: string): FaultDefinition => ({ name, kind: 'fault', breaks, description });

/**
 * How much later every new request's first token comes while a generation goes on after its client
 * left (fault cancel-ignored): the batch still decodes it, as pegainfer #215 measured (the next
 * request's TTFT 16.3 -> 25.5 ms), here large enough to stand out of a loaded machine's noise.
 */
export const ABANDONED_TTFT_MS = 400;

export const cancelFaults: readonly FaultDefinition[] = [
  f('cancel-ignored', ['CANCEL-001', 'CANCEL-002', 'CANCEL-003', 'CANCEL-006'], 'A client that goes away does not stop its request: it goes on generating (its tokens counted in /metrics as they are made) and holds its service slot until its planned last token (max_tokens), and every new request meanwhile gets its first token later (pegainfer #215).'),
  f('cancel-billed-full', ['CANCEL-004'], 'A request whose client went away is billed (/v1/me, /v1/me/usage, its outcome cost) for its whole planned completion, not for what was sent.'),
  f('cancel-billed-late', ['CANCEL-001', 'CANCEL-002', 'CANCEL-003', 'CANCEL-004', 'CANCEL-006'], 'As cancel-ignored (the generation goes on after the client left, holding its slot), and the whole planned completion is billed when it ends, about 2.6 s after CANCEL-004\'s cut: a check that reads the bill once, right after the stop bound, sees nothing yet (issue 37).'),
  f('cancel-no-receipt', ['CANCEL-005'], 'A request whose client went away gets no outcome Receipt: its gate Receipt stays unpaired.'),
  f('cancel-leaks-slot', ['CANCEL-007'], 'A request whose client went away never frees its service slot: it stays in vllm:num_requests_running (and holds a --capacity slot) for ever.'),
];
