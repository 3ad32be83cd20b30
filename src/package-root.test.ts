import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FROM_SOURCE, checkWorkerUrl, codePath, packagePath, packageVersion } from './package-root.ts';

const repoRoot = fileURLToPath(new URL('../', import.meta.url));

describe('package root', () => {
  it('knows it runs from the TypeScript sources under vitest', () => {
    expect(FROM_SOURCE).toBe(true);
  });

  it('resolves spec/, fixtures/ and package.json under the repository root', () => {
    expect(packagePath('spec/openapi.yaml')).toBe(`${repoRoot}spec/openapi.yaml`);
    for (const f of ['spec/openapi.yaml', 'spec/requirements.yaml', 'spec/receipt.schema.json', 'fixtures/accounts.json', 'package.json']) {
      expect(existsSync(packagePath(f)), f).toBe(true);
    }
    expect(packageVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('finds the help text and the check worker entry from source', () => {
    expect(existsSync(codePath('src/cli/help.txt'))).toBe(true);
    expect(existsSync(fileURLToPath(checkWorkerUrl()))).toBe(true);
  });
});
