export { SseReader, readAllSse, type SseEvent, type SseFinding, type SseReaderStats, type SseEndState, type LineEnding } from './sse-reader.ts';
export { HttpCore, type CoreRequest, type CoreResult, type Ended } from './http-core.ts';
export { Secrets } from './secrets.ts';
export { normalizeBaseUrl, type NormalizedBaseUrl } from './base-url.ts';
export { buildCurl, shellQuote, TOKEN_PLACEHOLDER } from './curl.ts';
