import type { ProtocolCapability } from '../protocol.ts';
import { idsOfRules } from './stream-rules.ts';

/**
 * The features of a chat completion request beyond the seed's table (spec, chat completions:
 * "Other fields: not shown"): each a capability, probed, and judged only where the server offers
 * it or the user declares it with --expect (docs/conformance.md, "Capabilities").
 */
export const chatCapabilities: readonly ProtocolCapability[] = [
  { name: 'json-object', title: 'JSON mode', member: 'response_format {"type":"json_object"}', ids: ['CHAT-034'] },
  { name: 'json-schema', title: 'Structured Outputs (strict JSON Schema)', member: 'response_format {"type":"json_schema"}', ids: ['CHAT-035', 'CHAT-036', 'CHAT-037'] },
  { name: 'stream-usage', title: 'Usage in streams', member: 'stream_options.include_usage', ids: ['CHAT-028', ...idsOfRules(['usage-chunk-missing', 'usage-chunk-not-last', 'usage-null-omitted', 'usage-chunk-envelope', 'usage-counts'])] },
  { name: 'tool-choice', title: 'tool_choice none, required and named', member: 'tool_choice', ids: ['TOOLS-018', 'TOOLS-019', 'TOOLS-023'] },
  { name: 'parallel-tool-calls', title: 'Parallel tool calls', member: 'two tool calls in one streamed turn', ids: ['TOOLS-024', 'TOOLS-025'] },
  { name: 'parallel-tool-calls-false', title: 'One call per turn on request', member: 'parallel_tool_calls false', ids: ['TOOLS-020'] },
  { name: 'stop', title: 'Stop sequences', member: 'stop', ids: [] },
  { name: 'n', title: 'Several choices', member: 'n', ids: ['CHAT-029', ...idsOfRules(['choice-missing'])] },
  { name: 'seed', title: 'Seeded sampling', member: 'seed', ids: [] },
  { name: 'logprobs', title: 'Log probabilities', member: 'logprobs', ids: [] },
  { name: 'max-completion-tokens', title: 'Completion length bound', member: 'max_completion_tokens', ids: ['CHAT-030'] },
  { name: 'reasoning', title: 'Reasoning models', member: 'delta.reasoning_content / delta.reasoning', ids: ['CHAT-038', 'CHAT-STREAM-048', 'CHAT-STREAM-049', 'CHAT-STREAM-050', 'CLIENT-026', 'CLIENT-027', 'CLIENT-028', 'CLIENT-045', 'CLIENT-054'] },
  { name: 'reasoning-effort', title: 'Reasoning effort', member: 'reasoning_effort', ids: ['CHAT-039'] },
];
