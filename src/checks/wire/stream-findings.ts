import type { HttpExchange } from '../http/check-http.ts';
import type { Judge } from '../kernel/judge.ts';
import type { StreamCheckResult } from '../../protocols/chat-completions/stream-checker.ts';
import { StreamValidator } from '../../protocols/chat-completions/stream-checker.ts';
import { evidence } from '../kernel/evidence.ts';
import { requirementOfRule } from '../../protocols/chat-completions/stream-rules.ts';
import { gradeOf } from '../registry/registry-view.ts';

export interface CheckedStream {
  name: string;
  ex: HttpExchange;
  result: StreamCheckResult;
}

/** Feeds the reads of an exchange, as they arrived, through the strict reader and the stream checker. */
export function checkExchange(ex: HttpExchange, options: { includeUsage?: boolean; n?: number } = {}): StreamCheckResult {
  const v = new StreamValidator(options);
  ex.chunks.forEach((c, i) => v.feed(c.bytes, BigInt(i)));
  return v.end();
}

/**
 * Judges the stream checker's findings on the IDs this check owns: each finding is a breach of the
 * requirement its rule code decides (the protocol's rule table, stream-rules.ts), graded by the judge from the
 * registry like every other judgement; an owned ID with no finding in any stream passes.
 */
export function judgeFindings(j: Judge, streams: readonly CheckedStream[], owned: readonly string[]): void {
  for (const s of streams) {
    if (s.ex.status !== 200) {
      for (const id of owned) j.violated(id, evidence(s.ex, `${s.name}: answered ${s.ex.status}, not a 200 event stream`, { expected: 200, received: s.ex.status }));
      continue;
    }
    for (const f of s.result.findings) {
      const id = requirementOfRule(f.rule);
      if (!owned.includes(id)) continue;
      // A body the server broke off says so (HDR-016), so "no [DONE]" is not read as the server's choice.
      const cut = s.ex.bodyError === undefined ? '' : ` (the server broke the body off: ${s.ex.bodyError})`;
      j.violated(
        id,
        evidence(s.ex, `${s.name}: ${f.message}${cut}`, {
          ...(f.expected === undefined ? {} : { expected: f.expected }),
          ...(f.received === undefined ? {} : { received: f.received }),
          ...(f.pointer === undefined ? {} : { pointer: f.pointer }),
          byteOffset: f.byteOffset,
        }),
      );
    }
  }
  for (const id of owned) if (!j.has(id)) j.pass(id);
}

/** The stream breaks a MUST requirement (by the registry's grades): its assembled message is not to be trusted. */
export function breaksMust(result: StreamCheckResult): boolean {
  return result.findings.some((f) => gradeOf(requirementOfRule(f.rule)) === 'MUST');
}
