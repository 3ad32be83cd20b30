import { appendFileSync } from 'node:fs';
import dns from 'node:dns';
import { installOfflineGuard, type Attempt } from './offline-guard.ts';

// The offline guard in iari's client process (src/checks/clients/client-process.ts), where the JS
// client libraries run: loaded with `--import <this file's URL>?record=<path>`, it writes every
// attempt it refuses to that file, one JSON line each, as it happens (the process is killed, not ended).
const record = new URL(import.meta.url).searchParams.get('record');
if (record === null) throw new Error('offline-guard-child: no ?record=<path>');
const guard = installOfflineGuard();
const attempts = guard.attempts as Attempt[];
attempts.push = (...items: Attempt[]): number => {
  for (const a of items) appendFileSync(record, `${JSON.stringify(a)}\n`);
  return Array.prototype.push.apply(attempts, items);
};
appendFileSync(record, `${JSON.stringify({ installed: process.pid })}\n`);
// The guard is shown to record here: one lookup of a reserved name, refused.
dns.lookup('iari-offline-child-probe.invalid', () => undefined);
