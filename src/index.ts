// `iari`: the library behind the CLI. Conformance runs, load runs, the bundled mock server and the
// Receipt verifier, each usable from code; `iari/receipts` has the whole receipt library and
// `iari/msw` the mock as msw request handlers. Examples: docs/library.md.

export { runConformance } from './library/conformance.ts';
export type { ConformanceOptions, ConformanceOutcome } from './library/conformance.ts';
export type { RequirementResult, Verdict, Grade } from './checks/kernel/verdicts.ts';
export type { ConformanceReport } from './checks/runner/conformance-report.ts';
export type { CheckRun } from './checks/runner/conformance-results.ts';

export { runLoad } from './library/load.ts';
export type { LoadOptions, LoadOutcome } from './library/load.ts';
export { runScenario } from './library/run-scenario.ts';
export type { LoadScenario, ScenarioOutcome, ScenarioRunOptions } from './library/run-scenario.ts';
export type { LoadResult, RequestRecord } from './load/results/load-result.ts';

export { defaultProtocols } from './protocols/registry.ts';
export type { ProtocolList } from './protocols/registry.ts';
export type { Protocol, RequestIntent, SentRequest, ResponseChecker, CheckedResponse, ResponseFacts, RuleTable } from './protocols/protocol.ts';
export type { MockSide, AnswerRenderer, GenerationAsk } from './protocols/protocol-mock.ts';

export { startMockServer, faultNames } from '../mock-server/index.ts';
export type { MockServer, MockServerOptions, ReceiptIssuer } from '../mock-server/index.ts';

export { verifyChain, verifyReceiptFile, verifyReceiptStream, ChainBuilder, generateKey, keyrefOf, digestOf, canonicalString } from './receipts/index.ts';
export type { ChainVerifyResult, Finding, FindingCode, VerifyOptions, Receipt, SealedReceipt } from './receipts/index.ts';

export { HarnessError, HarnessErrorCode, isHarnessError } from './errors.ts';
export { ExitCode } from './exit-codes.ts';
