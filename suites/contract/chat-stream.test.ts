// Generated from src/checks/catalog.ts by `npx tsx src/checks/write-contract-suites.ts`; do not edit.
import { describe, it } from 'vitest';
import { runs } from '../../src/checks/contract-runtime.ts';

describe('chat-stream', () => {
  it('CHAT-STREAM-001, CHAT-STREAM-002, CHAT-STREAM-003, CHAT-STREAM-004, CHAT-STREAM-005, CHAT-STREAM-022, CHAT-STREAM-033, CHAT-STREAM-037, CHAT-STREAM-041: stream true answers a valid UTF-8 text/event-stream with JSON chunks, at least one chunk, no meta-only or named events, ended by exactly one [DONE]', runs('chat-stream-framing'));
  it('CHAT-STREAM-006, CHAT-STREAM-007, CHAT-STREAM-008, CHAT-STREAM-009, CHAT-STREAM-010, CHAT-STREAM-011, CHAT-STREAM-012, CHAT-STREAM-013, CHAT-STREAM-044: every chunk is a chat.completion.chunk with one stable non-empty id, one created in seconds, a model and a choices array with stable indexes', runs('chat-stream-envelope'));
  it('CHAT-STREAM-014, CHAT-STREAM-015, CHAT-STREAM-016, CHAT-STREAM-017, CHAT-STREAM-018, CHAT-STREAM-019, CHAT-STREAM-020, CHAT-STREAM-021, CHAT-STREAM-039, CHAT-STREAM-045: each choice starts with role assistant once, carries string content, finishes exactly once with a known finish_reason and an empty delta, and n=2 streams both choices', runs('chat-stream-deltas'));
  it('CHAT-STREAM-023, CHAT-STREAM-024, CHAT-STREAM-025, CHAT-STREAM-026, CHAT-STREAM-027, CHAT-STREAM-028, CHAT-STREAM-029: include_usage adds exactly one last usage chunk with choices [] and consistent totals, and no usage is sent unless requested', runs('chat-stream-usage'));
  it('CHAT-STREAM-030: a stream request the server rejects answers a 4xx status with an error body, never a 200 event stream', runs('chat-stream-error-before-streaming'));
  it('CHAT-STREAM-031: a failure after the first chunk is sent as an error event and the stream then ends', runs('chat-stream-error-during-streaming'));
  it('CHAT-STREAM-032, CHAT-STREAM-034, CHAT-STREAM-036, CHAT-STREAM-042, CHAT-STREAM-043: keep-alive comments, CRLF or lone-CR line endings, data: without a space, ignored fields (unknown names, a non-digit retry, NUL in id) and a leading BOM are read as the SSE standard says', runs('chat-stream-legal-framing'));
  it('CHAT-STREAM-035: events and UTF-8 characters split across reads are reassembled, and the fragmentation is recorded', runs('chat-stream-reassembly'));
  it('CHAT-STREAM-038: the official openai SDK iterates the stream to its end without throwing', runs('chat-stream-openai-sdk'));
  it('CHAT-STREAM-040: the streamed message equals the non-streamed answer to the same seeded request: content, tool calls and finish_reason', runs('chat-stream-matches-completion'));
  it('CHAT-STREAM-047, CHAT-STREAM-048, CHAT-STREAM-049: a reasoning model streams its reasoning apart from the answer and before it, and counts it within completion_tokens', runs('chat-stream-reasoning'));
  it('CHAT-038: a tool turn whose assistant message gives the reasoning back is accepted', runs('chat-reasoning-echo'));
});
