import type { FuzzTarget } from '../target.ts';
import { baselineFile } from './baseline-file.ts';
import { chatStreamChecker } from './chat-stream-checker.ts';
import { dataset } from './dataset.ts';
import { eventBounds } from './event-bounds.ts';
import { jsonDepth } from './json-depth.ts';
import { payloadsFile } from './payloads-file.ts';
import { promText } from './prom-text.ts';
import { receiptReader } from './receipt-reader.ts';
import { receiptSplitter } from './receipt-splitter.ts';
import { scenarioFile } from './scenario-file.ts';
import { sseReader } from './sse-reader.ts';
import { strictJson } from './strict-json.ts';
import { responsesStreamChecker } from './responses-stream-checker.ts';
import { traceBurstgpt, traceMooncake } from './trace.ts';

/** Every fuzz target, in the order docs/fuzzing.md lists them. */
export const targets: readonly FuzzTarget[] = [sseReader, eventBounds, jsonDepth, strictJson, receiptSplitter, receiptReader, payloadsFile, promText, scenarioFile, traceMooncake, traceBurstgpt, dataset, baselineFile, chatStreamChecker, responsesStreamChecker];

export function targetNamed(name: string): FuzzTarget | undefined {
  return targets.find((t) => t.name === name);
}
