import { describe, expect, it } from 'vitest';
import { streamedReasoning } from './clients-reasoning.ts';

const event = (delta: Record<string, unknown>): string => `data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`;

describe('the reasoning the AI SDK should surface', () => {
  it('CLIENT-027: joins reasoning_content, else reasoning, per delta, as @ai-sdk/openai-compatible reads them', () => {
    expect(streamedReasoning(event({ reasoning_content: 'Think ' }) + event({ reasoning: 'again.' }) + event({ content: 'Hi' }) + 'data: [DONE]\n\n')).toBe('Think again.');
  });

  it('CLIENT-027: a delta that mirrors the reasoning under both names counts once, and an empty alias does not hide the other', () => {
    expect(streamedReasoning(event({ reasoning_content: 'Once.', reasoning: 'Once.' }))).toBe('Once.');
    expect(streamedReasoning(event({ reasoning_content: '', reasoning: 'Hidden from the SDK.' }))).toBe('Hidden from the SDK.');
    expect(streamedReasoning(event({ content: 'No reasoning.' }))).toBe('');
  });
});
