import type { SseEvent } from '../../client/sse-reader.ts';
import type { AssembledCompletion, AssembledUsage } from './stream-assembly.ts';
import { isNonNegInt, isObject, show, type Json, type Report, type Where } from './stream-choice-checks.ts';

const DAY_SECONDS = 86_400;
const ENVELOPE_FIELDS = ['id', 'object', 'created', 'model'] as const;
type Envelope = Record<(typeof ENVELOPE_FIELDS)[number], unknown>;

function pick(p: Json): Envelope {
  return { id: p['id'], object: p['object'], created: p['created'], model: p['model'] };
}

/** The chunk envelope rules (id, object, created, model, choices), and the usage chunk's envelope. */
export class EnvelopeChecks {
  readonly #a: AssembledCompletion;
  readonly #now: number;
  readonly #report: Report;
  #ref: Envelope | undefined;
  /** Envelope fields that already varied among the content chunks (reported there, not again on the usage chunk). */
  readonly #varied = new Set<string>();

  constructor(assembled: AssembledCompletion, nowSeconds: number, report: Report) {
    this.#a = assembled;
    this.#now = nowSeconds;
    this.#report = report;
  }

  check(p: Json, isUsageChunk: boolean): void {
    const a = this.#a;
    const report = this.#report;
    const ref = this.#ref;
    if (isUsageChunk && ref !== undefined) {
      // The usage chunk is judged against the other chunks; values wrong on all of them are reported there.
      const diffs: string[] = [];
      for (const field of ENVELOPE_FIELDS) {
        if (!this.#varied.has(field) && p[field] !== ref[field]) diffs.push(`${field} ${show(ref[field])} -> ${field in p ? show(p[field]) : 'absent'}`);
      }
      if (diffs.length > 0) report('usage-chunk-envelope', `usage chunk differs from the other chunks: ${diffs.join('; ')}`, { expected: ref, received: pick(p) });
      return;
    }
    if (ref === undefined) this.#ref = pick(p);
    else for (const field of ENVELOPE_FIELDS) if (p[field] !== ref[field]) this.#varied.add(field);
    // Compat, CreateChatCompletionStreamResponse.id: "Each chunk has the same ID."
    const id = p['id'];
    if (typeof id !== 'string' || id === '') {
      report('id-invalid', `id is ${'id' in p ? show(id) : 'absent'}`, { pointer: '/id', expected: 'a non-empty string', received: id ?? 'absent' });
    } else if (a.id === undefined) a.id = id;
    else if (id !== a.id) report('id-changed', `id changed from ${show(a.id)} to ${show(id)}`, { pointer: '/id', expected: a.id, received: id });
    // Compat, CreateChatCompletionStreamResponse.object: "The object type, which is always chat.completion.chunk."
    if (p['object'] !== 'chat.completion.chunk') {
      report('object-wrong', `object is ${'object' in p ? show(p['object']) : 'absent'}`, { pointer: '/object', expected: 'chat.completion.chunk', received: p['object'] ?? 'absent' });
    }
    if (a.object === undefined && 'object' in p) a.object = p['object'];
    // Compat, CreateChatCompletionStreamResponse.created: "Each chunk has the same timestamp."
    const c = p['created'];
    if (!isNonNegInt(c) || c >= 1e10) {
      const why = !('created' in p) ? 'absent' : !isNonNegInt(c) ? 'not a non-negative integer' : 'in milliseconds';
      report('created-invalid', `created ${show(c)} is ${why}`, { pointer: '/created', expected: `integer Unix seconds near ${Math.round(this.#now)}`, received: c ?? 'absent' });
    } else if (Math.abs(c - this.#now) > DAY_SECONDS) {
      // created-stale: clients pass an old created through as sent (LocalAI sent its process start time).
      report('created-stale', `created ${show(c)} is more than a day from now`, { pointer: '/created', expected: `integer Unix seconds near ${Math.round(this.#now)}`, received: c });
    }
    if ('created' in p) {
      if (a.created === undefined) a.created = c;
      else if (c !== a.created) report('created-changed', `created changed from ${show(a.created)} to ${show(c)}`, { pointer: '/created', expected: a.created, received: c });
    }
    const model = p['model'];
    if (typeof model !== 'string' || model === '') {
      report('model-invalid', `model is ${'model' in p ? show(model) : 'absent'}`, { pointer: '/model', expected: 'a non-empty string', received: model ?? 'absent' });
    } else if (a.model === undefined) a.model = model;
    if ('system_fingerprint' in p && a.systemFingerprint === undefined) a.systemFingerprint = p['system_fingerprint'];
    const choices = p['choices'];
    if (!Array.isArray(choices) && !isUsageChunk) {
      report('choices-invalid', `choices is ${'choices' in p ? show(choices) : 'absent'}, not an array`, { pointer: '/choices', expected: 'an array', received: choices ?? 'absent' });
    } else if (Array.isArray(choices) && choices.length === 0 && !isUsageChunk) {
      report('choices-empty', 'choices is [] on a chunk that is not the usage chunk', { pointer: '/choices', expected: 'a non-empty array', received: [] });
    }
  }
}

interface UsageChunk {
  offset: number;
  chunkIndex: number;
  eventIndex: number;
  choicesEmpty: boolean;
  choices: unknown;
}

/** The usage rules: where usage may appear, the one usage chunk, and its counts. */
export class UsageChecks {
  readonly #a: AssembledCompletion;
  readonly #includeUsage: boolean;
  readonly #report: Report;
  readonly #chunks: UsageChunk[] = [];
  #keyMissingReported = false;

  constructor(assembled: AssembledCompletion, includeUsage: boolean, report: Report) {
    this.#a = assembled;
    this.#includeUsage = includeUsage;
    this.#report = report;
  }

  check(p: Json, ev: SseEvent): void {
    const report = this.#report;
    if (!('usage' in p)) {
      // Compat, stream_options.include_usage: "All other chunks will also include a usage field, but with a null value."
      if (this.#includeUsage && !this.#keyMissingReported) {
        this.#keyMissingReported = true;
        report('usage-null-omitted', 'chunk omits usage; with include_usage other chunks carry usage: null', { pointer: '/usage', expected: null, received: 'absent' });
      }
      return;
    }
    const u = p['usage'];
    if (u === null) return;
    if (!this.#includeUsage) {
      report('usage-unrequested', `usage ${show(u)} sent although include_usage was not requested`, { pointer: '/usage', expected: 'absent or null', received: u });
    }
    const choices = p['choices'];
    this.#chunks.push({
      offset: ev.startOffset,
      chunkIndex: ev.chunkIndex,
      eventIndex: ev.index,
      choicesEmpty: Array.isArray(choices) && choices.length === 0,
      choices: choices ?? 'absent',
    });
    if (!isObject(u)) {
      report('usage-counts', `usage is ${show(u)}, not an object`, { pointer: '/usage', expected: 'an object', received: u });
      return;
    }
    this.#a.usage = u as AssembledUsage;
    const pt = u['prompt_tokens'];
    const ct = u['completion_tokens'];
    const tt = u['total_tokens'];
    if (!isNonNegInt(pt) || !isNonNegInt(ct) || !isNonNegInt(tt)) {
      report('usage-counts', `usage counts are not all non-negative integers: ${show(u)}`, {
        pointer: '/usage',
        expected: '{prompt_tokens, completion_tokens, total_tokens} integers >= 0',
        received: u,
      });
    } else if (tt !== pt + ct) {
      report('usage-counts', `total_tokens ${tt} != prompt_tokens ${pt} + completion_tokens ${ct}`, { pointer: '/usage/total_tokens', expected: pt + ct, received: tt });
    }
  }

  /**
   * After [DONE]. `lastChoicesEvent`: index of the last event that carried choices; `cut`: some
   * choice never finished (the stream was cut short, reported as such, not as a lost usage chunk).
   */
  finish(atEnd: Where, lastChoicesEvent: number, cut: boolean, errorSeen: boolean): void {
    if (!this.#includeUsage) return;
    const report = this.#report;
    const list = this.#chunks;
    const last = list[list.length - 1];
    for (let i = 0; i < list.length - 1; i++) {
      const u = list[i] as UsageChunk;
      const where = { at: u.offset, chunk: u.chunkIndex, event: u.eventIndex, pointer: '/usage', expected: null };
      if (u.choicesEmpty) report('usage-chunk-multiple', 'more than one usage chunk', where);
      else report('usage-non-null-interim', 'a chunk before the usage chunk carries a non-null usage', where);
    }
    if (last === undefined) {
      // Compat, stream_options.include_usage: "an additional chunk will be streamed before the data: [DONE] message".
      if (this.#a.chunks > 0 && !errorSeen && !cut) {
        report('usage-chunk-missing', 'include_usage was requested but no chunk carried usage', { ...atEnd, expected: 'a final chunk with choices [] and usage' });
      }
      return;
    }
    const where = { at: last.offset, chunk: last.chunkIndex, event: last.eventIndex };
    if (!last.choicesEmpty) report('usage-chunk-choices', `the usage chunk has choices ${show(last.choices)}`, { ...where, pointer: '/choices', expected: [], received: last.choices });
    if (lastChoicesEvent > last.eventIndex) report('usage-chunk-not-last', 'a chunk with choices follows the usage chunk', { ...where, expected: 'usage chunk last' });
  }
}
