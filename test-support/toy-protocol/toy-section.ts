// The toy API's own part of load.json (Protocol.resultSections): how many units its answers said
// they held (done.units) against the text events that came, over the run's window. Bound to a run
// that sends to the toy API; unbound or another API's run, it builds nothing.
import type { AnySection, ResultSection } from '../../src/sections/section-contract.ts';
import type { ProtocolSectionRun } from '../../src/protocols/protocol.ts';

export interface ToyUnits {
  answers: number;
  units: number;
  textEvents: number;
  unitsPerS: number;
}

const units = (run?: ProtocolSectionRun): ResultSection<ToyUnits, { answers: number; units: number; textEvents: number }> => ({
  key: 'toyUnits',
  place: 'workload',
  open: () => ({ answers: 0, units: 0, textEvents: 0 }),
  collect(acc, r) {
    const c = r.timing.extras?.counters;
    if (r.outcome !== 'ok' || typeof c?.['units'] !== 'number') return;
    acc.answers++;
    acc.units += c['units'];
    acc.textEvents += c['textEvents'] ?? 0;
  },
  build: (acc, ctx) => (run?.api !== 'toy-stream' ? undefined : { ...acc, unitsPerS: acc.units / ctx.windowS }),
  merge(parts, ctx) {
    const sum = (f: (p: ToyUnits) => number): number => parts.reduce((a, p) => a + f(p), 0);
    return { answers: sum((p) => p.answers), units: sum((p) => p.units), textEvents: sum((p) => p.textEvents), unitsPerS: sum((p) => p.units) / ctx.windowS };
  },
  summary: (o) => [`toy units: ${o.units} in ${o.answers} answers (${o.textEvents} text events)`],
  tile: (o) => ({ id: 'toy-units', title: 'Toy units', stats: [{ label: 'units', value: String(o.units) }, { label: 'answers', value: String(o.answers) }] }),
  slos: [{ metric: 'toy', stats: ['units', 'units_per_s'], unit: 'count', help: 'toy.units>=1', observe: (o, stat) => (o === undefined ? null : stat === 'units' ? o.units : o.unitsPerS), noData: 'no toy answer' }],
});

export const toySections = (run?: ProtocolSectionRun): readonly AnySection[] => [units(run) as AnySection];
