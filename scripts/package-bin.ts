import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The path of a package's command as its package.json `bin` names it. Not `require.resolve('pkg/bin/x')`:
 * a package's `exports` need not offer its bin (TypeScript 7 does not; openapi-typescript maps every
 * `*.js` to `*.mjs`).
 */
export function packageBin(pkg: string, command: string): string {
  const manifest = createRequire(import.meta.url).resolve(`${pkg}/package.json`);
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: string | Record<string, string> };
  const path = typeof bin === 'string' ? bin : bin?.[command];
  if (path === undefined) throw new Error(`${pkg} has no \`${command}\` command in its package.json bin`);
  return join(dirname(manifest), path);
}
