import type { ChatMessage } from './prompts.ts';
import type { RequestIntent } from '../../protocols/protocol.ts';
import { drawLength, rngFor, sharedPrefixes, syntheticPrompt, type DatasetItem, type Requested, type Workload, type WorkloadSpec } from './workload.ts';

/**
 * Multi-turn conversations (--turns N[,SD]): each turn sends the whole history, with the
 * server's own previous answers as the assistant messages, then the next user turn. Synthetic
 * conversations draw their turn count and user prompts from (seed, conversation); a dataset
 * conversation (ShareGPT, or an iari JSONL line with several user messages) replays its own user
 * turns in order, at most mean + 4 stdev of --turns. Each request `seq` is bound to a (conversation,
 * turn) when it is sent, so its body and what it asked for are known from `seq`.
 */

interface Turn {
  user: string;
  /** The output bound of this turn (null: the run's --max-tokens). */
  output: number | null;
  /** o200k tokens of the user text when known. */
  userTokens: number | null;
}

export interface Conversation {
  readonly id: number;
  readonly system: string | null;
  readonly turns: readonly Turn[];
  readonly history: ChatMessage[];
  /** Index of the turn to send next. */
  next: number;
  /** --chain: the server's last answer, by id, and how many history messages it holds. */
  kept?: { id: string; messages: number };
}

interface Bound {
  conv: Conversation;
  turn: number;
}

const MAX_TURNS = 1000;

export class Conversations implements Workload {
  readonly outputIs: 'target' | 'cap';
  readonly thinkTimeMs: number;
  started = 0;
  completed = 0;
  readonly #bySeq = new Map<number, Bound>();
  readonly #spec: WorkloadSpec;
  readonly #o: { model: string; maxTokens: number; stream: boolean; seed: number; prompts: readonly (readonly ChatMessage[])[] };
  readonly #prefixes: string[];

  constructor(spec: WorkloadSpec, o: { model: string; maxTokens: number; stream: boolean; seed: number; prompts: readonly (readonly ChatMessage[])[] }) {
    if (spec.conversation === undefined) throw new Error('Conversations needs a conversation spec');
    this.#spec = spec;
    this.#o = o;
    this.thinkTimeMs = spec.conversation.thinkTimeMs;
    this.#prefixes = spec.prefix === undefined ? [] : sharedPrefixes(spec.prefix, o.seed);
    this.outputIs = spec.output !== null || spec.input.kind === 'dataset' ? 'target' : 'cap';
  }

  /** A new conversation (numbered in start order, so a run is reproducible for its seed). */
  start(): Conversation {
    return this.#make(this.started++);
  }

  #make(id: number): Conversation {
    const spec = this.#spec;
    const conv = spec.conversation!;
    const seed = this.#o.seed;
    const prefixGroup = spec.prefix === undefined ? -1 : Math.floor(rngFor(seed, id, 14)() * spec.prefix.groups);
    const outputOf = (turn: number, reference: number | null): number | null => (spec.output !== null ? drawLength(rngFor(seed, id * 1024 + turn, 12), spec.output) : reference);
    let turns: Turn[];
    const input = spec.input;
    if (input.kind === 'dataset' && input.items.length > 0) {
      const item = input.items[(id + (seed % input.items.length)) % input.items.length] as DatasetItem;
      const cap = Math.min(MAX_TURNS, Math.max(1, Math.round(conv.turns.mean + 4 * conv.turns.stdev)));
      const own = item.turns ?? [{ user: lastUser(item.messages), outputTokens: item.outputTokens }];
      turns = own.slice(0, cap).map((t, k) => ({ user: t.user, output: outputOf(k, t.outputTokens), userTokens: k === 0 ? item.promptTokens : null }));
    } else {
      const n = Math.min(MAX_TURNS, drawLength(rngFor(seed, id, 11), conv.turns));
      turns = Array.from({ length: n }, (_, k) => {
        if (input.kind === 'synthetic') {
          const len = drawLength(rngFor(seed, id * 1024 + k, 13), input.length);
          return { user: syntheticPrompt(len, rngFor(seed, id * 1024 + k, 15)), output: outputOf(k, null), userTokens: len };
        }
        const prompts = this.#o.prompts;
        const p = prompts[(id + k + (seed % Math.max(1, prompts.length))) % Math.max(1, prompts.length)] ?? [];
        return { user: lastUser(p), output: outputOf(k, null), userTokens: null };
      });
    }
    const system = prefixGroup >= 0 ? (this.#prefixes[prefixGroup] ?? null) : null;
    return { id, system, turns, history: [], next: 0 };
  }

  /** Binds request `seq` to the conversation's next turn. */
  bind(seq: number, conv: Conversation): void {
    this.#bySeq.set(seq, { conv, turn: conv.next });
  }

  intent = (seq: number): RequestIntent => {
    // An unbound seq (the unrecorded priming request) sends the first turn of conversation 0.
    const b = this.#bySeq.get(seq) ?? { conv: this.#make(0), turn: 0 };
    const turn = b.conv.turns[b.turn] as Turn;
    const messages: ChatMessage[] = [...(b.conv.system === null ? [] : [{ role: 'system' as const, content: b.conv.system }]), ...b.conv.history, { role: 'user', content: turn.user }];
    const kept = b.turn === 0 ? undefined : b.conv.kept;
    return { model: this.#o.model, messages, maxOutputTokens: turn.output ?? this.#o.maxTokens, outputLimitMember: this.#spec.maxTokensField, stream: this.#o.stream, extraBody: this.#spec.extraBody, ...(kept === undefined ? {} : { continues: kept }) };
  };

  requested = (seq: number): Requested => {
    const b = this.#bySeq.get(seq);
    if (b === undefined) return { prompt: null, output: null };
    const turn = b.conv.turns[b.turn] as Turn;
    // The prompt grows with the history, whose answers are the server's: only the first turn's length is known ahead.
    const prompt = b.turn === 0 && turn.userTokens !== null ? turn.userTokens + (this.#spec.prefix?.tokens ?? 0) : null;
    return { prompt, output: turn.output, turn: b.turn, conversation: b.conv.id };
  };

  /**
   * Request `seq` ended: with an answer the conversation moves to its next turn (true: it has one);
   * a failed turn ends the conversation (its history would no longer be the server's own), and so,
   * chained (--chain), does an answer without an id: the next turn would have nothing to continue.
   */
  finish(seq: number, answer: string | undefined, ok: boolean, answerId?: string): boolean {
    const b = this.#bySeq.get(seq);
    this.#bySeq.delete(seq);
    if (b === undefined) return false;
    const conv = b.conv;
    if (!ok || answer === undefined) return false;
    const chained = this.#spec.conversation?.chain !== undefined;
    if (chained && answerId === undefined) return false;
    conv.history.push({ role: 'user', content: (conv.turns[b.turn] as Turn).user }, { role: 'assistant', content: answer });
    if (chained && answerId !== undefined) conv.kept = { id: answerId, messages: conv.history.length };
    conv.next = b.turn + 1;
    if (conv.next >= conv.turns.length) {
      this.completed++;
      return false;
    }
    return true;
  }
}

function lastUser(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === 'user') return messages[i]?.content ?? '';
  return messages.at(-1)?.content ?? '';
}
