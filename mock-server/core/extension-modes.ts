import type { FaultDefinition } from './fault-catalogue.ts';
import { CORE_CHAT_MEMBERS } from '../../src/protocols/chat-completions/chat-validation.ts';

// Legal modes of a server that implements the seed and nothing beyond it (issue 19, capability
// model). Spec, chat completions: the request table shows model, messages, temperature,
// stream and tools, and says "Other fields: not shown". A server may ignore a member it does not
// know (CHAT-020, DECISIONS.md D-HTTP-17) or refuse it with 400 (OpenAI: "Unrecognized request
// argument supplied"): iari must then skip what that member carries, not fail it.

const legal = (name: string, exercises: string[], description: string): FaultDefinition => ({ name, kind: 'legal', breaks: [], exercises, description });

export const extensionModes: readonly FaultDefinition[] = [
  legal('legal-core-only', ['CHAT-020'], 'Every chat request member beyond the seed\'s table (model, messages, temperature, stream, tools) is silently ignored but tool_choice, which it cannot enforce and so refuses with 400 (param tool_choice) unless it is "auto" (TOOLS-027), and GET /v1/models/{id} and POST /v1/embeddings are not served (404).'),
  legal('legal-refuses-extensions', ['CHAT-020'], 'A chat request with a member beyond the seed\'s table answers 400 invalid_request_error naming it in param, and GET /v1/models/{id} and POST /v1/embeddings are not served (404).'),
];

/** True when a legal extension mode hides GET /v1/models/{id} (and POST /v1/embeddings, beyond the seed too). */
export function retrieveHidden(fs: ReadonlySet<string>): boolean {
  return fs.has('legal-core-only') || fs.has('legal-refuses-extensions');
}

/** The chat body as a core-only server understands it (legal-core-only): extension members dropped. The chat protocol's validation refuses them under legal-refuses-extensions. */
export function coreOnlyBody(body: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (CORE_CHAT_MEMBERS.has(k)) kept[k] = v;
  return kept;
}
