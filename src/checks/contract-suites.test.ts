import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { catalog, testTitle } from './catalog.ts';
import { contractSuiteFiles } from './contract-suite-source.ts';
import { contractTitles, exercisedIds } from './contract-coverage.ts';
import { idsInTitle } from './contract-runtime.ts';
import { requirementInfos } from './registry-view.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('contract suites', () => {
  it('the suite files are the ones generated from the catalog (run write-contract-suites.ts after a change)', () => {
    for (const f of contractSuiteFiles()) expect(readFileSync(root + f.file, 'utf8'), f.file).toBe(f.source);
  });

  it('check names are unique and every check decides registered requirements', () => {
    const names = catalog.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    const registry = requirementInfos();
    for (const c of catalog) for (const id of c.ids) expect(registry.has(id), `${c.name}: ${id}`).toBe(true);
  });

  it('every title starts with the IDs its check decides and reads back the same way', () => {
    for (const c of catalog) {
      expect(testTitle(c).includes("'"), c.name).toBe(false);
      expect(idsInTitle(testTitle(c))).toEqual([...c.ids]);
    }
    expect(contractTitles().length).toBe(catalog.length);
  });

  it('the suites exercise at least 95% of the registry', () => {
    const registry = [...requirementInfos().keys()];
    const exercised = exercisedIds();
    const missing = registry.filter((id) => !exercised.has(id));
    expect(missing.length / registry.length).toBeLessThanOrEqual(0.05);
  });
});
