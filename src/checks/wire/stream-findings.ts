import type { CheckContext } from '../context/check-types.ts';
import type { HttpExchange } from '../http/check-http.ts';
import type { Judge } from '../kernel/judge.ts';
import type { StreamCheckResult } from '../../protocols/chat-completions/stream-checker.ts';
import { StreamValidator } from '../../protocols/chat-completions/stream-checker.ts';
import { evidence } from '../kernel/evidence.ts';
import { basicStream, emptyOptionsStream, twoChoiceStream, usageStream } from '../requests/common-requests.ts';
import { toolStream } from '../requests/tool-requests.ts';
import { offers } from '../requests/capability-probes.ts';
import { requirementOfRule } from '../registry/stream-rule-ids.ts';
import { gradeOfRule } from '../registry/rule-grades.ts';
import { sharedRequest } from '../context/shared-requests.ts';

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

/** The run's successful streams (plain, include_usage, empty stream_options, forced tool, n=2), checked once. */
export const checkedStreams = sharedRequest('streams:checked', async (ctx: CheckContext): Promise<CheckedStream[]> => {
  // stream_options and n are capabilities (capabilities.ts): their streams are judged where the server offers them.
  const usage = await offers(ctx, 'stream-usage');
  const n = await offers(ctx, 'n');
  const specs = [
    { name: 'plain stream', get: basicStream, opts: {} },
    ...(usage ? [{ name: 'stream with include_usage', get: usageStream, opts: { includeUsage: true } }, { name: 'stream with stream_options {}', get: emptyOptionsStream, opts: {} }] : []),
    { name: 'streamed forced tool call', get: toolStream, opts: {} },
    ...(n ? [{ name: 'stream with n=2', get: twoChoiceStream, opts: { n: 2 } }] : []),
  ];
  const out: CheckedStream[] = [];
  for (const s of specs) {
    const ex = await s.get(ctx);
    out.push({ name: s.name, ex, result: checkExchange(ex, s.opts) });
  }
  return out;
});

/**
 * Judges the stream checker's findings on the IDs this check owns: each finding is a breach of the
 * requirement its rule code decides (registry/stream-rule-ids.ts), graded by the judge from the
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
  return result.findings.some((f) => gradeOfRule(f.rule) === 'MUST');
}
