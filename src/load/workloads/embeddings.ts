import type { RequestIntent } from '../../protocols/protocol.ts';
import type { ChatMessage } from './prompts.ts';
import { drawLength, rngFor, syntheticPrompt, type DatasetItem, type EmbeddingsSpec, type Requested, type Workload, type WorkloadSpec } from './workload.ts';

/**
 * The batched-inputs workload (--embeddings-batch): every request carries `batch` texts to handle
 * at once (an embeddings request: compat CreateEmbeddingRequest, "To embed multiple inputs in a
 * single request, pass an array of strings"). The texts come from the same machinery as chat
 * prompts: synthetic texts of a token length (--input-tokens), a dataset's first user turns
 * (--dataset), or the built-in or --prompts messages. Input k of request `seq` is a pure function
 * of (seed, seq, k), so a run is reproducible.
 */
export function embeddingsWorkload(
  spec: WorkloadSpec & { embeddings: EmbeddingsSpec },
  o: { model: string; seed: number; prompts: readonly (readonly ChatMessage[])[] },
): Workload {
  const { batch, encodingFormat } = spec.embeddings;
  const input = spec.input;
  // Input k of request seq is item seq * batch + k of one endless, seeded sequence.
  const at = (seq: number, k: number): number => seq * batch + k;
  const lengthOf = (n: number): number | null => (input.kind === 'synthetic' ? drawLength(rngFor(o.seed, n, 1), input.length) : input.kind === 'dataset' ? (itemOf(n)?.promptTokens ?? null) : null);
  const itemOf = (n: number): DatasetItem | null => (input.kind === 'dataset' && input.items.length > 0 ? (input.items[(n + (o.seed % input.items.length)) % input.items.length] ?? null) : null);
  const textOf = (n: number): string => {
    if (input.kind === 'synthetic') return syntheticPrompt(lengthOf(n) ?? 1, rngFor(o.seed, n, 3));
    const messages = itemOf(n)?.messages ?? o.prompts[(n + (o.seed % Math.max(1, o.prompts.length))) % Math.max(1, o.prompts.length)] ?? [];
    return embeddedText(messages);
  };
  const requested = (seq: number): Requested => {
    let sum: number | null = 0;
    for (let k = 0; k < batch && sum !== null; k++) {
      const l = lengthOf(at(seq, k));
      sum = l === null ? null : sum + l;
    }
    return { prompt: sum, output: null };
  };
  const options = encodingFormat === undefined ? undefined : { encoding_format: encodingFormat };
  const intent = (seq: number): RequestIntent => {
    const texts = Array.from({ length: batch }, (_, k) => textOf(at(seq, k)));
    return { model: o.model, messages: [], inputs: texts, maxOutputTokens: 0, stream: false, extraBody: spec.extraBody, ...(options === undefined ? {} : { options }) };
  };
  return { intent, requested, outputIs: 'cap' };
}

/** The text a chat prompt stands for as an embeddings input: its first user message (else every message's content), never empty. */
function embeddedText(messages: readonly ChatMessage[]): string {
  const user = messages.find((m) => m.role === 'user' && m.content !== '');
  const text = user?.content ?? messages.map((m) => m.content).join('\n');
  return text === '' ? ' ' : text;
}
