// Builds dist/: tsc compiles what the package runs (tsconfig.build.json: the CLI, the library
// entries and the check worker) to JS plus .d.ts,
// rewriting the sources' `.ts` import specifiers to `.js` (rewriteRelativeImportExtensions), so
// the code keeps one form of import for tsx, vitest and the compiler. Then the file tsc does not
// emit is put in place: the CLI's help text, the requirement registry parsed once (registry-document.ts)
// and the tokenizer's rank table as JSON (tokenizer.ts). The package ships no tests: `iari test` runs the
// check catalog in its own process.
// Run by `npm run build`, and by `prepare` on `npm ci` and `npm pack`. The new tree is built beside
// the old one and swapped in by two renames, so a process running from dist/ meanwhile (a test
// that runs the CLI) never finds it half-written.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageBin } from './package-bin.ts';
import { writePrebuiltDocument } from '../src/checks/registry/registry-document.ts';
import { writePrebuiltRanks } from '../src/tokenizer.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const target = join(root, 'dist');
const dist = join(root, `dist.next-${process.pid}`);
const old = join(root, `dist.old-${process.pid}`);

rmSync(dist, { recursive: true, force: true });
const tsc = packageBin('typescript', 'tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', dist], { stdio: 'inherit' });
if (compiled.status !== 0) {
  process.stderr.write('build: tsc failed\n');
  process.exit(1);
}

copyFileSync(join(root, 'src/cli/help.txt'), join(dist, 'src/cli/help.txt'));
// openai-python's driver runs in the user's Python interpreter, beside the module that spawns it (python-worker.ts).
copyFileSync(join(root, 'src/checks/clients/openai-python-driver.py'), join(dist, 'src/checks/clients/openai-python-driver.py'));

// The requirement registry parsed once here, not in every run (issue 41): a run takes it when the YAML's hash matches.
mkdirSync(join(dist, 'spec'), { recursive: true });
writePrebuiltDocument(join(root, 'spec/requirements.yaml'), join(dist, 'spec/requirements.parsed.json'));
// o200k_base's rank table as JSON, read instead of compiling the package's 2.1 MB array literal (tokenizer.ts).
mkdirSync(join(dist, 'tokenizer'), { recursive: true });
writePrebuiltRanks(join(dist, 'tokenizer/o200k_base.ranks.json'));

// test-support/ (fixtures, samples, reference implementations the tests share) is never shipped: a product module that imports it would bring it here.
const leftover = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) => /\.test\.(js|d\.ts)$/.test(f) || (f.endsWith('.ts') && !f.endsWith('.d.ts')) || f.startsWith('test-support'));
if (leftover.length > 0 || !existsSync(join(dist, 'src/cli/entry.js'))) {
  process.stderr.write(`build: unexpected files in dist: ${leftover.join(', ') || 'src/cli/entry.js is missing'}\n`);
  rmSync(dist, { recursive: true, force: true });
  process.exit(1);
}
if (existsSync(target)) renameSync(target, old);
renameSync(dist, target);
rmSync(old, { recursive: true, force: true });
process.stdout.write('build: dist/ written\n');
