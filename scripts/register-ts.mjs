import { register } from 'node:module';
// iari's own TypeScript, types stripped by esbuild (scripts/ts-hooks.mjs); dependencies load untouched.
// Used from source only (compiled from dist/, nothing needs hooks): by child processes of the tests
// and benchmarks that run the CLI or the mock from source (suites/hostile/run-child.ts, bench-soak.ts).
register('./ts-hooks.mjs', import.meta.url);
process.setSourceMapsEnabled(true);
