// The toy API's answers, checked: rule codes and the normalised facts every consumer reads.
import type { CheckedResponse, CheckerOptions, OutputEvent, ResponseChecker, ResponseFacts, RuleFinding, SentRequest } from '../../src/protocols/protocol.ts';
import { SseReader } from '../../src/client/sse-reader.ts';
import type { ToyRule } from './toy-wire.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function facts(output: OutputEvent[], text: string, units: number | null, inputUnits: number | null, events: number): ResponseFacts {
  return { events, output, usage: { input: inputUnits, output: units, cachedInput: null, reasoning: null }, outputText: () => text, eventTexts: () => null, answer: text, toolCalls: [], counters: { units, textEvents: output.length } };
}

/** A whole answer {text, units, input_units}. */
function judgeWhole(body: unknown): CheckedResponse {
  if (!isRecord(body) || typeof body['text'] !== 'string') return { findings: [], facts: facts([], '', null, null, 0), unusable: { detail: 'the answer has no text' } };
  const n = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) ? v : null);
  return { findings: [], facts: facts([], body['text'], n(body['units']), n(body['input_units']), 0) };
}

/** A stream of {seq, text} events ended by {done, units, input_units}. */
export function toyChecker(sent: SentRequest, _options: CheckerOptions = {}): ResponseChecker {
  const reader = new SseReader();
  const findings: RuleFinding[] = [];
  const add = (rule: ToyRule, message: string): void => void findings.push({ rule, message });
  const output: OutputEvent[] = [];
  let text = '';
  let next = 0;
  let done: Record<string, unknown> | null = null;
  let events = 0;
  let body: Uint8Array[] | null = sent.stream ? null : [];
  return {
    feed(chunk, arrivedAt) {
      if (body !== null) return void body.push(chunk);
      for (const e of reader.feed(chunk, arrivedAt)) {
        if (e.kind !== 'message') continue;
        events++;
        let v: unknown;
        try {
          v = JSON.parse(e.data);
        } catch {
          add('not-json', `event ${events} is not JSON`);
          continue;
        }
        if (!isRecord(v)) add('not-json', `event ${events} is not an object`);
        else if (done !== null) add('no-done', 'an event came after the done event');
        else if (v['done'] === true) done = v;
        else {
          if (v['seq'] !== next) add('seq-gap', `event seq ${String(v['seq'])} where ${next} was due`);
          next = typeof v['seq'] === 'number' ? v['seq'] + 1 : next + 1;
          const piece = typeof v['text'] === 'string' ? v['text'] : '';
          text += piece;
          output.push({ arrivedAt: e.arrivedAt, chars: piece.length });
        }
      }
    },
    end() {
      if (body !== null) {
        const b = Buffer.concat(body).toString('utf8');
        body = null;
        try {
          return judgeWhole(JSON.parse(b));
        } catch {
          return { findings: [], facts: facts([], '', null, null, 0), unusable: { detail: 'response body is not JSON' } };
        }
      }
      reader.end();
      const d = done as Record<string, unknown> | null;
      if (d === null) add('no-done', 'the stream ended without a done event');
      const units = d !== null && typeof d['units'] === 'number' ? d['units'] : null;
      if (units !== null && units !== output.length) add('units-mismatch', `done.units is ${units} for ${output.length} text events`);
      const inputUnits = d !== null && typeof d['input_units'] === 'number' ? d['input_units'] : null;
      return { findings, facts: facts(output, text, units, inputUnits, events) };
    },
  };
}
