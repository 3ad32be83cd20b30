// Generated from src/checks/catalog.ts by `npx tsx src/checks/write-contract-suites.ts`; do not edit.
import { describe, it } from 'vitest';
import { runs } from '../../src/checks/contract-runtime.ts';

describe('chat', () => {
  it('CHAT-001, CHAT-002, CHAT-003, CHAT-004, CHAT-005, CHAT-006, CHAT-007, CHAT-008, CHAT-009, CHAT-010, CHAT-011, CHAT-012, CHAT-013, CHAT-014, CHAT-015, CHAT-016, CHAT-017, CHAT-033: a minimal request answers a chat.completion with id, created, model, indexed assistant choices, finish_reason and consistent usage', runs('chat-basic-shape'));
  it('CHAT-018: a conversation with system, user, assistant and tool messages is accepted', runs('chat-roles'));
  it('CHAT-019: documented OpenAI parameters with valid values are accepted', runs('chat-params'));
  it('CHAT-020: an unknown top-level request member is ignored or refused with 400', runs('chat-unknown-member'));
  it('CHAT-021, CHAT-022, CHAT-023, CHAT-024: missing model, missing or empty messages and an unknown role answer 400 naming the field in param', runs('chat-missing-fields'));
  it('CHAT-025: temperature outside 0..2 answers 400 with param temperature', runs('chat-temperature-range'));
  it('CHAT-027: a tool message without tool_call_id answers 400', runs('chat-tool-message-id'));
  it('CHAT-028: stream_options without stream true answers 400 naming stream_options', runs('chat-stream-options-without-stream'));
  it('CHAT-029: n=3 answers three choices indexed 0, 1, 2', runs('chat-n-choices'));
  it('CHAT-030: max_completion_tokens 1 bounds the completion and cut text finishes with length', runs('chat-max-tokens'));
  it('CHAT-031: the official openai SDK parses a completion with only baseURL set', runs('chat-openai-sdk'));
  it('CHAT-032: a syntactically invalid JSON body answers 400', runs('chat-non-json-body'));
  it('CHAT-034: response_format json_object answers content that parses as one JSON object', runs('chat-json-object'));
  it('CHAT-035, CHAT-036: response_format json_schema (strict) answers JSON valid against the schema, streamed and not', runs('chat-json-schema'));
  it('CHAT-037: a strict json_schema outside the OpenAI strict subset answers 400 invalid_request_error with param response_format', runs('chat-json-schema-strict-refusal'));
});
