import { register } from 'node:module';
// iari's own TypeScript, types stripped by esbuild (bin/ts-hooks.mjs); dependencies load untouched.
register('./ts-hooks.mjs', import.meta.url);
process.setSourceMapsEnabled(true);
// Worker threads inherit these hooks (src/load/check-worker-boot.mjs then registers none of its own).
globalThis[Symbol.for('iari.tsHooks')] = true;
