import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONTRACT_SUITES, FROM_SOURCE, checkWorkerUrl, codePath, packagePath, packageVersion } from './package-root.ts';

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

  it('finds the help text, the check worker entry and the contract suites from source', () => {
    expect(existsSync(codePath('src/cli/help.txt'))).toBe(true);
    expect(existsSync(fileURLToPath(checkWorkerUrl()))).toBe(true);
    expect(CONTRACT_SUITES.dir).toBe(`${repoRoot}suites/contract`);
    expect(readdirSync(CONTRACT_SUITES.dir).filter((f) => f.endsWith(CONTRACT_SUITES.suffix)).length).toBeGreaterThan(5);
  });
});
