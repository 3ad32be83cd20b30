import { describe } from 'vitest';
import { faults } from '../../mock-server/index.ts';
import { runsChatClients, useMatrix } from './fault-matrix-harness.ts';

// The fault matrix's faults that run chat's client operations (fault-matrix-harness.ts): openai-node,
// the AI SDK, LangChain and openai-python, each against the fault's own mock, most of the matrix's
// CPU. A file of their own, so the shared tier's two workers run them beside the rest of the matrix
// (fault-matrix.test.ts, which also shows the baseline clean and runs the Responses API's faults).

const { faultTest } = useMatrix('fault matrix (chat\'s client operations)');

describe('fault matrix: faults that run chat\'s client operations', () => {
  // Two majors each of openai-node and the AI SDK, LangChain and openai-python (54), and the Responses
  // API's (11) unless the fault is applied on chat's wire alone.
  for (const f of faults.filter((x) => runsChatClients(x))) faultTest(f);
});
