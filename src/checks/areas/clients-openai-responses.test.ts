import { describe, expect, it } from 'vitest';
import { outputTextOf, responseTextProblem } from './clients-openai-responses.ts';

const message = (content: unknown): unknown[] => [{ type: 'message', role: 'assistant', content }];

describe('a Response\'s answer as openai-node hands it over', () => {
  it('CLIENT-RESP-001: a truthful incomplete at max_output_tokens passes with any text, even none', () => {
    expect(responseTextProblem('', 'incomplete', 'max_output_tokens', message([]))).toBeUndefined();
    expect(responseTextProblem('Once upon', 'incomplete', 'max_output_tokens', message([{ type: 'output_text', text: 'Once upon' }]))).toBeUndefined();
  });

  it('CLIENT-RESP-001: an empty answer the server ended completed is the model\'s, undecided; text outside output_text parts is the server\'s', () => {
    expect(responseTextProblem('', 'completed', undefined, message([]))).toEqual({ skip: expect.stringMatching(/^undecided/) });
    expect(responseTextProblem('', 'completed', undefined, message('Hello'))).toMatchObject({ problem: expect.stringMatching(/outside output_text parts/), received: 'Hello' });
    expect(responseTextProblem('', 'completed', undefined, message([{ type: 'text', text: 'Hello' }]))).toMatchObject({ received: { type: 'text', text: 'Hello' } });
  });

  it('CLIENT-RESP-001, CLIENT-RESP-003: no output_text, another status or another incomplete reason is a problem', () => {
    expect(responseTextProblem(undefined, 'completed', undefined, [])).toMatchObject({ problem: 'the client returned no output_text' });
    expect(responseTextProblem('Hi', 'in_progress', undefined, [])).toMatchObject({ problem: 'the response has status "in_progress"' });
    expect(responseTextProblem('Hi', 'incomplete', 'content_filter', [])).toMatchObject({ problem: 'the response has status "incomplete"' });
    expect(responseTextProblem('Hi', 'completed', undefined, [])).toBeUndefined();
  });

  it('CLIENT-RESP-002: output_text joins the output_text parts of every message item, and nothing else', () => {
    const output = [{ type: 'reasoning', content: [{ type: 'reasoning_text', text: 'hmm' }] }, ...message([{ type: 'output_text', text: 'Hel' }, { type: 'refusal', refusal: 'no' }, { type: 'output_text', text: 'lo' }]), { type: 'function_call', arguments: '{}' }];
    expect(outputTextOf(output)).toBe('Hello');
    expect(outputTextOf(undefined)).toBe('');
  });
});
