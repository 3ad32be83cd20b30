// Where iari's own files are at run time. The same module runs from its TypeScript source
// (src/package-root.ts under tsx or vitest) and compiled (dist/src/package-root.js in a clone after
// `npm run build`, or in node_modules/iari/ after `npm install iari`). Every file iari reads at run
// time (spec/, fixtures/, package.json, help text, the check worker) is
// resolved here, so none of them depends on where the module that reads it was emitted.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** True when iari runs from its TypeScript sources (tsx, vitest); false when it runs compiled from dist/. */
export const FROM_SOURCE: boolean = import.meta.url.endsWith('.ts');

/** The package root: holds package.json, spec/ and fixtures/ (the directory above src/, or above dist/src/). */
export const PACKAGE_ROOT: URL = new URL(FROM_SOURCE ? '../' : '../../', import.meta.url);

/** The code root: holds src/ and mock-server/ as they run (the package root, or its dist/). */
export const CODE_ROOT: URL = new URL('../', import.meta.url);

/** URL of a file under the package root, e.g. `packageUrl('spec/openapi.yaml')`. */
export function packageUrl(relative: string): URL {
  return new URL(relative, PACKAGE_ROOT);
}

/** Path of a file under the package root, e.g. `packagePath('fixtures/accounts.json')`. */
export function packagePath(relative: string): string {
  return fileURLToPath(packageUrl(relative));
}

/** URL of a file under the code root, e.g. `codeUrl('src/cli/help.txt')` (copied beside the compiled CLI by the build). */
export function codeUrl(relative: string): URL {
  return new URL(relative, CODE_ROOT);
}

/** Path of a file under the code root. */
export function codePath(relative: string): string {
  return fileURLToPath(codeUrl(relative));
}

/** The entry of the load engine's check worker: compiled JS, or from source a boot file that registers tsx first. */
export function checkWorkerUrl(): URL {
  return codeUrl(FROM_SOURCE ? 'src/load/measure/check-worker-boot.mjs' : 'src/load/measure/check-worker.js');
}

let version: string | undefined;

/** iari's version, from its package.json (read once). */
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(packageUrl('package.json'), 'utf8')) as { version: string }).version;
  return version;
}
