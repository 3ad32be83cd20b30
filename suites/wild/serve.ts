/**
 * Serves recorded exchanges for a manual run: `npx tsx suites/wild/serve.ts ID...` starts the
 * bundled mock and a replay server with those exchanges on 127.0.0.1, writes the mock's token to
 * a private temporary file, prints the `iari test` line to run against it, and stops on Ctrl-C.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCorpus } from './corpus.ts';
import { startReplayFor, startWildMock } from './wild-run.ts';

const ids = process.argv.slice(2);
const corpus = loadCorpus();
const exchanges = ids.map((id) => {
  const ex = corpus.find((e) => e.id === id);
  if (ex === undefined) {
    process.stderr.write(`no exchange "${id}" in fixtures/wild (ids: ${corpus.map((e) => e.id).join(', ')})\n`);
    process.exit(2);
  }
  return ex;
});
if (exchanges.length === 0) {
  process.stderr.write('usage: npx tsx suites/wild/serve.ts ID... (see fixtures/wild/<server>/<id>.json)\n');
  process.exit(2);
}
const mock = await startWildMock();
const replay = await startReplayFor(mock, exchanges);
const dir = mkdtempSync(join(tmpdir(), 'iari-wild-'));
const tokenFile = join(dir, 'token');
writeFileSync(tokenFile, mock.tokens.default, { mode: 0o600 });
const only = [...new Set(exchanges.flatMap((e) => Object.keys(e.verdicts)))].sort().join(',');
process.stdout.write(`replaying ${exchanges.map((e) => e.id).join(', ')} on ${replay.origin}/v1 (everything else: the bundled mock)\n`);
process.stdout.write(`npx iari test --base-url ${replay.origin}/v1 --token-file ${tokenFile} --only ${only}\n`);
process.on('SIGINT', () => {
  void replay.close().then(() => mock.close()).then(() => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(130);
  });
});
