import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faults } from '../../mock-server/index.ts';
import { faultTimeout, faultTitle, judgeFault, printTable, runBaselines, setUpMatrix, touchesClients, type Baselines, type Matrix, type Row } from './fault-matrix-harness.ts';

// The fault matrix's faults that touch the CLIENT area (fault-matrix-harness.ts): each runs the client
// libraries' operations against its own mock. A file of their own, so the shared tier's two workers
// run them beside the rest of the matrix (fault-matrix.test.ts, which also shows the baseline clean).

let mx: Matrix;
let base: Baselines;
const table: Row[] = [];

beforeAll(async () => {
  mx = setUpMatrix();
  base = await runBaselines(mx);
}, 600_000);

afterAll(() => printTable('fault matrix (the CLIENT area)', table));

describe('fault matrix: faults that touch the client libraries', () => {
  // A fault that touches the CLIENT area runs its operations: two majors each of openai-node and the
  // AI SDK, LangChain and openai-python (54), and the Responses API's where it is the Responses API's fault.
  for (const f of faults.filter((x) => touchesClients(x))) {
    it(faultTitle(f), async () => {
      const { row, problems } = await judgeFault(mx, base, f);
      table.push(row);
      expect(problems).toEqual([]);
    }, faultTimeout(f));
  }
});
