import type { BuiltRequest, ProtocolRoute, RequestIntent, ToolDeclaration } from '../protocol.ts';

/**
 * The chat completions route (spec, Endpoints: POST /v1/chat/completions): relative to a base URL
 * that ends in /v1 (what the load engines and client libraries are given), and as the whole path
 * (what the checks send from the server's root). The one place the harness names it.
 */
export const CHAT_COMPLETIONS_ROUTE = '/chat/completions';
export const CHAT_COMPLETIONS_PATH = `/v1${CHAT_COMPLETIONS_ROUTE}`;
export const chatRoute: ProtocolRoute = { method: 'POST', path: CHAT_COMPLETIONS_ROUTE };

/** Body members iari sets itself; --extra-body may not replace them. */
export const CHAT_RESERVED_MEMBERS = ['model', 'messages', 'stream', 'stream_options', 'max_tokens', 'max_completion_tokens'] as const;

/** Compat, ChatCompletionTool: `{"type": "function", "function": {name, description, parameters, strict}}`. */
function wireTool(t: ToolDeclaration): Record<string, unknown> {
  return { type: 'function', function: { name: t.name, ...(t.description === undefined ? {} : { description: t.description }), ...(t.parameters === undefined ? {} : { parameters: t.parameters }), ...(t.strict === undefined ? {} : { strict: t.strict }) } };
}

/**
 * A chat completion request for an intent. Spec, chat completions request: model, messages,
 * stream; compat: the output bound in `max_tokens` (or `max_completion_tokens`, or both), a stream
 * asks for usage in its last chunk (`stream_options.include_usage`), tools last.
 */
export function chatRequest(intent: RequestIntent): BuiltRequest {
  const max = intent.maxOutputTokens;
  const member = intent.outputLimitMember ?? 'max_tokens';
  const limit: Record<string, number> = member === 'both' ? { max_tokens: max, max_completion_tokens: max } : { [member]: max };
  const body: Record<string, unknown> = {
    ...(intent.extraBody ?? {}),
    ...(intent.options ?? {}),
    model: intent.model,
    messages: intent.messages,
    ...limit,
    stream: intent.stream,
    ...(intent.stream ? { stream_options: { include_usage: true } } : {}),
  };
  if (intent.tools !== undefined && intent.tools.length > 0) body['tools'] = intent.tools.map(wireTool);
  return { route: chatRoute, body, sent: { api: 'chat-completions', stream: intent.stream, includeUsage: intent.stream } };
}
