import type { HttpExchange } from '../http/check-http.ts';
import type { Judge } from '../kernel/judge.ts';
import type { ResponsesFinding } from '../../protocols/responses/responses-rules.ts';
import { ResponsesStreamValidator, type ResponsesStreamOptions, type ResponsesStreamResult } from '../../protocols/responses/responses-stream.ts';
import { evidence } from '../kernel/evidence.ts';
import { requirementOfResponsesRule } from '../../protocols/responses/responses-rules.ts';

/** Feeds the reads of an exchange, as they arrived, through the strict reader and the Responses stream checker. */
export function checkResponsesExchange(ex: HttpExchange, options: ResponsesStreamOptions = {}): ResponsesStreamResult {
  const v = new ResponsesStreamValidator(options);
  ex.chunks.forEach((c, i) => v.feed(c.bytes, BigInt(i)));
  return v.end();
}

/**
 * Each finding is a breach of the requirement its rule decides (src/protocols/responses/responses-rules.ts),
 * graded by the judge from the registry; findings of requirements the check does not own are left
 * to the check that owns them.
 */
export function judgeResponsesFindings(j: Judge, ex: HttpExchange, what: string, findings: readonly ResponsesFinding[]): void {
  for (const f of findings) {
    const id = requirementOfResponsesRule(f.rule);
    if (!j.ids.includes(id)) continue;
    j.violated(id, evidence(ex, `${what}: ${f.message}`, { pointer: f.pointer, ...(f.expected === undefined ? {} : { expected: f.expected }), ...('received' in f ? { received: f.received } : {}), ...(f.byteOffset === undefined ? {} : { byteOffset: f.byteOffset }) }));
  }
}
