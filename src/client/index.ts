export { SseReader, readAllSse, type SseEvent, type SseFinding, type SseReaderStats, type SseEndState, type LineEnding } from './sse-reader.ts';
export {
  StreamChecker,
  StreamValidator,
  checkStream,
  loadGptTokenCounter,
  type StreamCheckOptions,
  type StreamCheckResult,
  type StreamFinding,
  type StreamTiming,
  type ContentEvent,
} from '../protocols/chat-completions/stream-checker.ts';
export { streamRules, streamRuleCodes, type StreamRuleCode } from '../protocols/chat-completions/stream-rules.ts';
export { toMessage, type AssembledCompletion, type AssembledChoice, type AssembledToolCall, type AssembledMessage } from '../protocols/chat-completions/stream-assembly.ts';
export { HttpCore, type CoreRequest, type CoreResult, type Ended } from './http-core.ts';
export { Secrets } from './secrets.ts';
export { normalizeBaseUrl, type NormalizedBaseUrl } from './base-url.ts';
export { buildCurl, shellQuote, TOKEN_PLACEHOLDER } from './curl.ts';
