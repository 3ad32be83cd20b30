import type { CheckedResponse, CheckerOptions, ResponseChecker, ResponseFacts } from './protocol.ts';
import { parseJsonBounded, parseJsonPrescanned } from '../client/json-depth.ts';

/** The facts of an answer that said nothing (no output, no usage). */
export function emptyFacts(): ResponseFacts {
  return { events: 0, output: [], usage: { input: null, output: null, cachedInput: null, reasoning: null }, outputText: () => '', eventTexts: () => null, answer: null, toolCalls: [] };
}

/**
 * A checker for an answer that arrives whole (a JSON body): its reads are kept, parsed once at the
 * end behind the nesting bound (registry HDR-015), and handed to `judge`. A body that is not JSON
 * is `unusable`, whatever the API.
 */
export function wholeBodyChecker(options: CheckerOptions, judge: (body: unknown) => CheckedResponse): ResponseChecker {
  let reads: Uint8Array[] = [];
  return {
    feed(chunk) {
      reads.push(chunk);
    },
    end() {
      const text = Buffer.concat(reads).toString('utf8');
      reads = [];
      const bounded = options.jsonDepthChecked === true ? parseJsonPrescanned(text) : parseJsonBounded(text);
      if (!bounded.ok) {
        return { findings: [], facts: emptyFacts(), unusable: bounded.tooDeep ? { detail: `response body is ${bounded.error} (HDR-015)`, finding: 'json-too-deep' } : { detail: 'response body is not JSON' } };
      }
      return judge(bounded.value);
    },
  };
}
