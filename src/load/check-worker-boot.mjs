import { register } from 'node:module';
import { workerData } from 'node:worker_threads';

// The check worker runs TypeScript like the rest of iari. Under bin/iari.js it inherits the main
// thread's hooks (bin/register-ts.mjs); anywhere else (a test runner's process) it registers them.
if (workerData?.tsHooks !== true) register('../../bin/ts-hooks.mjs', import.meta.url);
await import('./check-worker.ts');
