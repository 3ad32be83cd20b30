import { register } from 'tsx/esm/api';

// Runs the TypeScript verify worker the way bin/iari.js runs the CLI (compiled JavaScript starts
// verify-worker.js directly; see verify-pool.ts).
register();
await import('./verify-worker.ts');
