// Embeddings (compat: OpenAI CreateEmbedding, POST /v1/embeddings) as an instance of the protocol
// contract: a capability beyond the seed, answered whole, generating nothing.
import type { BuiltRequest, Protocol, RequestIntent } from '../protocol.ts';
import type { MockSide } from '../protocol-mock.ts';
import { EMBEDDINGS_ROUTE, embeddingsBody, type EncodingFormat } from './embeddings-request.ts';
import { checkEmbeddingsResponse, embeddingsCounters } from './embeddings-response.ts';
import { embeddingsRequirementIds, embeddingsRules } from './embeddings-rules.ts';
import { emptyFacts, wholeBodyChecker } from '../whole-body.ts';
import { embeddingsMock } from './embeddings-mock.ts';
import { embeddingsSections } from './embeddings-section.ts';

const route = { method: 'POST', path: EMBEDDINGS_ROUTE } as const;

/** The text a chat prompt stands for as an embeddings input: its first user message (else every message's content), never empty. */
export function embeddedText(messages: RequestIntent['messages']): string {
  const user = messages.find((m) => m.role === 'user' && m.content !== '');
  const text = user?.content ?? messages.map((m) => m.content).join('\n');
  return text === '' ? ' ' : text;
}

/** A request embedding the intent's inputs (else its messages as one input), with `encoding_format` and `dimensions` from its options. */
function embeddingsRequest(intent: RequestIntent): BuiltRequest {
  // Compat, CreateEmbeddingRequest.input: "a string or array of tokens"; a batch is an array of strings.
  const texts = intent.inputs ?? [embeddedText(intent.messages)];
  const input = intent.inputs === undefined ? (texts[0] as string) : [...texts];
  const o = intent.options ?? {};
  const encodingFormat = o['encoding_format'] === 'float' || o['encoding_format'] === 'base64' ? (o['encoding_format'] as EncodingFormat) : undefined;
  const dimensions = typeof o['dimensions'] === 'number' ? o['dimensions'] : undefined;
  const body = { ...(intent.extraBody ?? {}), ...embeddingsBody(intent.model, input, { ...(encodingFormat === undefined ? {} : { encodingFormat }), ...(dimensions === undefined ? {} : { dimensions }) }) };
  return {
    route,
    body,
    sent: { api: 'embeddings', stream: false, inputs: texts.length, ...(encodingFormat === undefined ? {} : { encodingFormat }), ...(dimensions === undefined ? {} : { dimensions }) },
  };
}

export const embeddings: Protocol = {
  name: 'embeddings',
  title: 'Embeddings',
  moduleUrl: import.meta.url,
  routes: [route],
  streaming: 'never',
  capability: { name: 'embeddings', title: 'Embeddings', member: 'POST /v1/embeddings', ids: embeddingsRequirementIds },
  rules: embeddingsRules,
  units: { output: 'none' },
  request: embeddingsRequest,
  checker(sent, options = {}) {
    const inputs = typeof sent['inputs'] === 'number' ? sent['inputs'] : 1;
    const encodingFormat = sent['encodingFormat'] === 'base64' || sent['encodingFormat'] === 'float' ? sent['encodingFormat'] : undefined;
    const dimensions = typeof sent['dimensions'] === 'number' ? sent['dimensions'] : undefined;
    return wholeBodyChecker(options, (parsed) => {
      const r = checkEmbeddingsResponse(parsed, { inputs, ...(encodingFormat === undefined ? {} : { encodingFormat }), ...(dimensions === undefined ? {} : { dimensions }) });
      const facts = emptyFacts();
      facts.usage.input = r.usage?.promptTokens ?? null;
      facts.counters = embeddingsCounters(r);
      return { findings: r.findings, facts };
    });
  },
  // An embeddings answer is never streamed: nothing to tally.
  outputTally: () => ({ feed: () => 0 }),
  mock: embeddingsMock as MockSide,
  resultSections: embeddingsSections,
};

/** The check worker imports this module by `moduleUrl` and reads this export. */
export const protocol = embeddings;
