// Generated from src/checks/catalog.ts by `npx tsx src/checks/write-contract-suites.ts`; do not edit.
import { describe, it } from 'vitest';
import { runs } from '../../src/checks/contract-runtime.ts';

describe('bounds', () => {
  it('HDR-012, HDR-013, HDR-014, HDR-015, HDR-016, CHAT-STREAM-046: responses end within the request deadline, stay within 16 MiB on the wire and inflated, nest JSON at most 64 levels, are well-formed HTTP/1.1, and stream events of at most 8 MiB', runs('headers-response-bounds'));
});
