// Generated from src/checks/catalog.ts by `npx tsx src/checks/write-contract-suites.ts`; do not edit.
import { describe, it } from 'vitest';
import { runs } from '../../src/checks/contract-runtime.ts';

describe('tools', () => {
  it('TOOLS-001, TOOLS-002, TOOLS-003, TOOLS-004, TOOLS-005, TOOLS-006, TOOLS-007, TOOLS-010, TOOLS-019: a forced function tool is returned as tool_calls with unique ids, type function, a declared name and string JSON arguments', runs('tools-call-shape'));
  it('TOOLS-008, TOOLS-009, TOOLS-022: finish_reason tool_calls comes with tool calls, and tool calls under tool_choice auto finish with tool_calls', runs('tools-finish-reason'));
  it('CHAT-026, TOOLS-011: replaying the assistant tool call (content null) with a tool result completes the round trip', runs('tools-round-trip'));
  it('TOOLS-012, TOOLS-013, TOOLS-014, TOOLS-015, TOOLS-016, TOOLS-017: streamed tool-call deltas have contiguous integer indexes, a first delta with id, type and name, a stable identity and string argument fragments that join to JSON', runs('tools-stream-deltas'));
  it('TOOLS-018: tool_choice none suppresses tool calls', runs('tools-choice-none'));
  it('TOOLS-020: parallel_tool_calls false yields at most one tool call', runs('tools-parallel-false'));
  it('TOOLS-021: a function name with spaces or over 64 characters answers 400', runs('tools-invalid-definition'));
  it('TOOLS-023: tool_choice required answers at least one tool call', runs('tools-choice-required'));
  it('TOOLS-024, TOOLS-025: two parallel calls stream at their own indexes (deltas may interleave), with distinct ids and arguments that parse', runs('tools-parallel-stream'));
  it('TOOLS-026: arguments of a function with a nested object and an array of objects keep their structure', runs('tools-nested-arguments'));
});
