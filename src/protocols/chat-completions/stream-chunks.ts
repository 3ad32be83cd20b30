import { readAllSse } from '../../client/sse-reader.ts';

/** The JSON chunks of a streamed exchange, read by the standard SSE reader (multi-line data, CR/CRLF, comments). */
export function streamChunks(ex: { chunks: readonly { bytes: Uint8Array }[] }): unknown[] {
  const { events } = readAllSse(Buffer.concat(ex.chunks.map((c) => c.bytes)));
  const out: unknown[] = [];
  for (const e of events) {
    if (e.kind !== 'message' || e.data === '[DONE]') continue;
    try {
      out.push(JSON.parse(e.data) as unknown);
    } catch {
      // not JSON: the stream checks judge it
    }
  }
  return out;
}
