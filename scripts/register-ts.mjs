import { register } from 'node:module';
// iari's own TypeScript, types stripped by esbuild (scripts/ts-hooks.mjs); dependencies load untouched.
// Used from source only (compiled from dist/, nothing needs hooks): by the contract suites' vitest
// worker (src/checks/contract-vitest.ts), which loads src/ and mock-server/ natively.
register('./ts-hooks.mjs', import.meta.url);
process.setSourceMapsEnabled(true);
