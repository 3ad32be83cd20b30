// Crash-test child for mock-server/ledger.test.ts: a mock server with a receipt ledger, in its own
// process so the parent can SIGKILL it while its requests are in flight. The parent is the client
// (another process, as in real life): a response it read completely must have its receipts on disk.
// Usage: IARI_TOKEN=... node --import tsx test-support/receipt-ledger-child.ts LEDGER SEED [PORT]
// (PORT: a restart on the same port, suites/load/mock-restart.test.ts). Bounded by itself: it exits after 60 s.
import fs from 'node:fs';
import { startMockServer } from '../mock-server/index.ts';

const [ledger, seedText, portText] = process.argv.slice(2);
if (ledger === undefined || seedText === undefined) {
  process.stderr.write('usage: receipt-ledger-child.ts LEDGER SEED [PORT]\n');
  process.exit(2);
}
const server = await startMockServer({ ledger, seed: Number(seedText), limits: false, completionTokens: [4, 12], ...(portText === undefined ? {} : { port: Number(portText) }) });
fs.writeSync(1, `ready ${server.url}\n`);
setTimeout(() => void server.close().then(() => process.exit(0)), 60_000).unref();
await new Promise<void>((resolve) => setTimeout(resolve, 60_000));
