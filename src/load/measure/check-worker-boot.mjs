import { register } from 'tsx/esm/api';

// The check worker runs TypeScript like the rest of iari (bin/iari.js registers tsx the same way).
register();
await import('./check-worker.ts');
