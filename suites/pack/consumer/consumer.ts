// Type-checked by the pack suite with `tsc --strict --module nodenext`: the three entry points as a
// TypeScript user imports them. It is compiled, never run.
import { runConformance, runLoad, startMockServer, verifyChain, HarnessError, type ConformanceReport, type LoadResult, type MockServer } from 'iari';
import { ChainBuilder, generateKey, parseStrictJson, type SealedReceipt } from 'iari/receipts';
import { createMockHandlers, type MockHandlers } from 'iari/msw';
import { setupServer } from 'msw/node';

export async function everything(): Promise<void> {
  const mock: MockServer = await startMockServer({ seed: 7, faults: ['stream-no-done'] });
  const { passed, report }: { passed: boolean; report: ConformanceReport } = await runConformance({ baseUrl: mock.url, token: mock.tokens.default, grade: 'must', only: ['ME-001'] });
  const failed: string[] = report.results.filter((r) => r.verdict === 'fail').map((r) => r.id);
  const load: LoadResult = (await runLoad({ rate: 5, arrival: 'poisson', duration: '2s', slo: ['ttft.p95<800ms'] })).result;
  const p95: number | undefined = load.metrics.ttft?.percentiles.p95;
  const issuer = generateKey();
  const chain = new ChainBuilder({ issuer, actor: generateKey() });
  const gate: SealedReceipt = chain.appendGate({ verb: 'model.call', resource: 'iari-mini', decision: { result: 'allowed' }, cost: { amount: '1', unit: 'USD' } });
  const valid: boolean = verifyChain(chain.receipts, { trustedIssuers: [issuer.keyref] }).valid;
  const parsed = parseStrictJson(new TextEncoder().encode(JSON.stringify(gate.receipt)));
  const handlers: MockHandlers = createMockHandlers({ baseUrl: 'https://api.example.test/v1' });
  const server = setupServer(...handlers.handlers);
  server.listen();
  server.close();
  handlers.close();
  await mock.close();
  const error: unknown = new Error('x');
  console.log(passed, failed, p95, valid, parsed.ok, error instanceof HarnessError ? error.code : null);
}
