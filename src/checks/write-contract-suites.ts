import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { contractSuiteFiles } from './contract-suite-source.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
for (const f of contractSuiteFiles()) {
  writeFileSync(root + f.file, f.source);
  process.stdout.write(`wrote ${f.file}\n`);
}
