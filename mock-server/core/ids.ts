import { randomBytes } from 'node:crypto';

// Unique identifiers without per-call crypto: a random per-process prefix plus a counter.
const processPrefix = randomBytes(6).toString('hex');
let counter = 0;

function next(): string {
  counter = (counter + 1) % 0x1000000000000;
  return processPrefix + counter.toString(16).padStart(12, '0');
}

/** HTTP profile: "Every response carries `x-request-id: req_<24+ hex>`". */
export function newRequestId(): string {
  return `req_${next()}`;
}

export function newCompletionId(): string {
  return `chatcmpl-${next()}`;
}
