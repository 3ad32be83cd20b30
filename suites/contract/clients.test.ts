// Generated from src/checks/catalog.ts by `npx tsx src/checks/write-contract-suites.ts`; do not edit.
import { describe, it } from 'vitest';
import { runs } from '../../src/checks/contract-runtime.ts';

describe('clients', () => {
  it('CLIENT-001: openai-node client.models.list() yields the listed models, each with its id', runs('client-openai-models-list'));
  it('CLIENT-002: openai-node client.chat.completions.create() returns a completion with the assistant text', runs('client-openai-completion'));
  it('CLIENT-003: openai-node client.chat.completions.stream() streams the text and assembles the final completion from it', runs('client-openai-stream'));
  it('CLIENT-004: openai-node client.chat.completions.create({ tools }) returns the forced tool call with JSON arguments, and a text answer once the tool result is sent back', runs('client-openai-tool-round-trip'));
  it('CLIENT-005: openai-node client.chat.completions.stream({ tools }) assembles the streamed tool call with JSON arguments, and streams a text answer once the tool result is sent back', runs('client-openai-tool-round-trip-stream'));
  it('CLIENT-006: openai-node client.chat.completions.create() with a wrong key raises AuthenticationError carrying the server error message', runs('client-openai-401'));
  it('CLIENT-007: openai-node client.chat.completions.create() with an unknown model raises NotFoundError carrying the server error message', runs('client-openai-404-model'));
  it('CLIENT-008: openai-node client.chat.completions.create() under baseURL …/v1/iari-no-such-prefix raises NotFoundError carrying the server error message', runs('client-openai-404-route'));
  it('CLIENT-009: openai-node client.chat.completions.create() answered 429 raises its rate-limit error carrying the server message', runs('client-openai-429'));
  it('CLIENT-010: Vercel AI SDK generateText() returns the assistant text', runs('client-vercel-generate-text'));
  it('CLIENT-011: Vercel AI SDK streamText() streams the assistant text with no error part', runs('client-vercel-stream-text'));
  it('CLIENT-012: Vercel AI SDK generateText({ tools, stopWhen }) calls the forced tool with parsed input, sends its result back and returns the text answer', runs('client-vercel-tool-round-trip'));
  it('CLIENT-013: Vercel AI SDK streamText({ tools, stopWhen }) streams the forced tool call with parsed input, sends its result back and streams the text answer', runs('client-vercel-tool-round-trip-stream'));
  it('CLIENT-014: Vercel AI SDK generateText() with a wrong key throws APICallError with statusCode 401 and the server error read', runs('client-vercel-401'));
  it('CLIENT-015: Vercel AI SDK generateText() with an unknown model throws APICallError with statusCode 404 and the server error read', runs('client-vercel-404-model'));
  it('CLIENT-016: Vercel AI SDK generateText() under baseURL …/v1/iari-no-such-prefix throws APICallError with statusCode 404 and the server error read', runs('client-vercel-404-route'));
  it('CLIENT-017: Vercel AI SDK generateText() answered 429 raises its rate-limit error carrying the server message', runs('client-vercel-429'));
  it('CLIENT-018: LangChain ChatOpenAI.invoke() returns an AIMessage with the assistant text', runs('client-langchain-invoke'));
  it('CLIENT-019: LangChain ChatOpenAI.stream() streams AIMessageChunks that concatenate to the assistant text', runs('client-langchain-stream'));
  it('CLIENT-020: LangChain ChatOpenAI.bindTools().invoke() returns the forced tool call in tool_calls with parsed args, and a text answer to the ToolMessage', runs('client-langchain-tool-round-trip'));
  it('CLIENT-021: LangChain ChatOpenAI.bindTools().stream() streams chunks that concatenate to the forced tool call with parsed args, and a text answer to the ToolMessage', runs('client-langchain-tool-round-trip-stream'));
  it('CLIENT-022: LangChain ChatOpenAI.invoke() with a wrong key throws with status 401, lc_error_code MODEL_AUTHENTICATION and the server error message', runs('client-langchain-401'));
  it('CLIENT-023: LangChain ChatOpenAI.invoke() with an unknown model throws with status 404, lc_error_code MODEL_NOT_FOUND and the server error message', runs('client-langchain-404-model'));
  it('CLIENT-024: LangChain ChatOpenAI.invoke() under baseURL …/v1/iari-no-such-prefix throws with status 404, lc_error_code MODEL_NOT_FOUND and the server error message', runs('client-langchain-404-route'));
  it('CLIENT-025: LangChain ChatOpenAI.invoke() answered 429 raises its rate-limit error carrying the server message', runs('client-langchain-429'));
});
