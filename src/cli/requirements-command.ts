import { relative } from 'node:path';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { ExitCode } from '../exit-codes.ts';
import { requirementAreas, loadRequirements, type Requirement } from '../checks/registry/requirements-registry.ts';
import { computeCoverage, scanSuites, type SuiteTest } from '../checks/registry/suite-coverage.ts';
import { parseFlags } from './args.ts';

const USAGE = `iari requirements: list the requirement registry (spec/requirements.yaml)

  iari requirements [--area AREA] [--json]
  iari requirements --coverage [--area AREA] [--json] [--suites DIR]

  --area AREA    only this area (${requirementAreas.join(', ')})
  --json         print JSON instead of a table
  --coverage     how many requirements some check of the catalog (the checks iari test runs)
                 decides, and the ones none does (exit 0 either way)
  --suites DIR   with --coverage: scan this folder's **/*.test.ts for requirement IDs in test
                 titles instead of the catalog (repeatable; for your own suites)

An ID reads AREA-NNN; source is seed (the interface spec), compat (the OpenAI wire format) or
profile (this project's choice, spec/DECISIONS.md); grade is MUST, SHOULD or INFO.
Docs: docs/spec.md
`;

/** Aligned columns; the last column is not padded. */
function table(rows: string[][]): string {
  const columns = Math.max(0, ...rows.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, col) => Math.max(0, ...rows.map((r) => (r[col] ?? '').length)));
  return rows.map((r) => r.map((cell, col) => (col === r.length - 1 ? cell : cell.padEnd(widths[col] ?? 0))).join('  ')).join('\n');
}

export function formatRegistryTable(requirements: Requirement[]): string {
  const rows = [['ID', 'GRADE', 'SOURCE', 'TITLE'], ...requirements.map((r) => [r.id, r.grade, r.source, r.optional === undefined ? r.title : `${r.title} [${r.optional}]`])];
  return `${table(rows)}\n${requirements.length} requirements\n`;
}

/** The catalog's checks as tests: each decides the IDs its title names (src/checks/runner/catalog.ts). */
async function catalogTests(): Promise<SuiteTest[]> {
  const { catalog, testTitle } = await import('../checks/runner/catalog.ts');
  return catalog.map((def) => ({ file: `src/checks/requirementAreas (${def.area})`, title: testTitle(def), ids: [...def.ids] }));
}

export async function run(argv: string[]): Promise<number> {
  const { values } = parseFlags('requirements', argv, {
    area: { type: 'string' },
    json: { type: 'boolean' },
    coverage: { type: 'boolean' },
    suites: { type: 'string', multiple: true },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    process.stdout.write(USAGE);
    return ExitCode.ok;
  }
  if (values.suites !== undefined && values.coverage !== true) {
    throw new HarnessError(HarnessErrorCode.USAGE, 'requirements: --suites only applies with --coverage', { hint: 'see iari requirements --help' });
  }
  const all = loadRequirements();
  let requirements = all;
  if (values.area !== undefined) {
    const area = values.area.toUpperCase();
    if (!(requirementAreas as readonly string[]).includes(area)) {
      throw new HarnessError(HarnessErrorCode.USAGE, `requirements: unknown area "${values.area}"`, { hint: `requirementAreas: ${requirementAreas.join(', ')}` });
    }
    requirements = requirements.filter((r) => r.area === area);
  }

  if (values.coverage !== true) {
    process.stdout.write(values.json === true ? `${JSON.stringify(requirements, null, 2)}\n` : formatRegistryTable(requirements));
    return ExitCode.ok;
  }

  const dirs = values.suites;
  const tests = dirs === undefined ? await catalogTests() : dirs.flatMap((dir) => scanSuites(dir));
  const cov = computeCoverage(requirements, tests, new Set(all.map((r) => r.id)));
  const where = dirs === undefined ? 'the check catalog' : dirs.map((d) => relative(process.cwd(), d) || '.').join(', ');
  if (values.json === true) {
    const out = {
      exercised: cov.exercised,
      registry: cov.registry,
      tests: cov.tests,
      unexercised: cov.unexercised.map((r) => r.id),
      unknown: cov.unknown,
    };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return ExitCode.ok;
  }
  const pct = cov.registry === 0 ? 0 : (100 * cov.exercised) / cov.registry;
  const lines = [`exercised ${cov.exercised} / ${cov.registry} requirements (${pct.toFixed(1)}%) by ${cov.tests} ${dirs === undefined ? 'checks' : 'tests'} in ${where}`];
  if (cov.unexercised.length > 0) {
    lines.push('', `not exercised by any check (${cov.unexercised.length}):`, table(cov.unexercised.map((r) => [`  ${r.id}`, r.grade, r.source, r.title])));
  }
  if (cov.unknown.length > 0) {
    lines.push('', `test titles citing IDs that are not in the registry (${cov.unknown.length}):`);
    for (const u of cov.unknown) lines.push(`  ${u.id}  ${u.file}: ${u.title}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return ExitCode.ok;
}
