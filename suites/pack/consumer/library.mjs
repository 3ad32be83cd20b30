// The `iari` and `iari/receipts` entry points from plain Node ESM, as docs/library.md shows them.
import { runConformance, runLoad, startMockServer, verifyChain } from 'iari';
import { ChainBuilder, generateKey } from 'iari/receipts';

const conformance = await runConformance({ only: ['MODELS-001', 'CHAT-001'] });
const judged = conformance.report.results.filter((r) => r.verdict !== 'skipped').map((r) => `${r.id}:${r.verdict}`);
const { result } = await runLoad({ requests: 4, concurrency: 2 });
const mock = await startMockServer({ seed: 7 });
const models = await (await fetch(`${mock.url}/models`)).json();
await mock.close();
const issuer = generateKey();
const chain = new ChainBuilder({ issuer, actor: generateKey() });
const gate = chain.appendGate({ verb: 'model.call', resource: 'iari-mini', decision: { result: 'allowed' }, cost: { amount: '0.00012', unit: 'USD' } });
chain.appendOutcome(gate.digest, { status: 'ok', cost: { amount: '0.00012', unit: 'USD' }, resolved: { provider: 'iari-mock', model: 'iari-mini', boundary: ['account:demo'] } });
const verified = verifyChain(chain.receipts, { trustedIssuers: [issuer.keyref] });
process.stdout.write(`${JSON.stringify({ passed: conformance.passed, judged, finished: result.counts.finished, models: models.data.length, chainValid: verified.valid, errors: verified.valid ? [] : verified.errors })}\n`);
