import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'iari-gen-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function generate(specPath: string): string {
  const out = join(dir, `api-${Math.random().toString(36).slice(2)}.d.ts`);
  // Same generator and arguments as `npm run gen:types` (openapi-typescript on TypeScript 5's compiler API).
  execFileSync(process.execPath, ['--import', 'tsx', join(root, 'scripts/gen-types.ts'), specPath, out], { cwd: root, stdio: 'pipe', timeout: 60_000 });
  return readFileSync(out, 'utf8');
}

describe('src/generated/api.d.ts', () => {
  it('is what openapi-typescript generates from spec/openapi.yaml now (run `npm run gen:types` when this fails)', () => {
    const committed = readFileSync(join(root, 'src/generated/api.d.ts'), 'utf8');
    expect(generate('spec/openapi.yaml')).toBe(committed);
  });

  it('the comparison notices a changed spec (a new member changes the generated types)', () => {
    const spec = readFileSync(join(root, 'spec/openapi.yaml'), 'utf8').replace('        owned_by: { type: string }\n', '        owned_by: { type: string }\n        shutdown_date: { type: string }\n');
    const copy = join(dir, 'openapi.yaml');
    writeFileSync(copy, spec);
    copyFileSync(join(root, 'spec/receipt.schema.json'), join(dir, 'receipt.schema.json'));
    const generated = generate(copy);
    expect(generated).toContain('shutdown_date');
    expect(generated).not.toBe(readFileSync(join(root, 'src/generated/api.d.ts'), 'utf8'));
  });
});
