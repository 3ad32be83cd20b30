// load.json's `coordination` record (results/coordination-section.ts) behind the result-section
// contract's run-record member (src/sections/section-contract.ts, RunRecord): its summary line and
// report status line, the stop that fails the run, and the window in which coordinated shards all ran.
import type { RunRecord } from '../../sections/section-contract.ts';
import type { Coordination } from '../results/coordination-section.ts';
import { allRanWindow, coordinationLine, stopLine } from './coordination-report.ts';

export const coordinationRecord: RunRecord<Coordination> = {
  key: 'coordination',
  line: (c) => coordinationLine(c),
  stopped: (c) => stopLine(c),
  // Coordinated shards (one clock, one start) are judged over the window in which all ran, its whole
  // seconds; a merge of anything else (a coordinator's record, an uncoordinated run) over the union.
  mergeWindow: (parts) => (parts.every((p) => p.record.role === 'shard') ? allRanWindow(parts) : null),
};
