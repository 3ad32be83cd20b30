/**
 * The workload sections of the load `report.html`, each shown only when load.json carries its data:
 * the cards of the run's result sections (src/sections/) at the `workload` place, in list order
 * (conversations by turn, prompt-cache hits, reasoning vs answer timing, tool-call validity, ...).
 */
import type { LoadResult } from '../load/results/load-result.ts';
import { sectionTiles, type SectionResult } from '../sections/section-run.ts';
import type { AnySection } from '../sections/section-contract.ts';
import { defaultLoadSections } from '../load/results/load-sections.ts';
import { tileCard } from './section-tile.ts';
import { html, type Html } from './html-shell.ts';

/** The cards of the sections whose data the run has, in the list's order; '' when none. */
export function workloadSections(r: LoadResult, sections: readonly AnySection[] = defaultLoadSections): Html {
  return html`${sectionTiles(sections, r as unknown as SectionResult, 'workload').map(tileCard)}`;
}
