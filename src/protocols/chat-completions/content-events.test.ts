import { describe, expect, it } from 'vitest';
import { ContentEvents } from './content-events.ts';

const ev = (delta: Record<string, unknown>): string => `data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`;

describe('content events of a stream, fed as it arrives', () => {
  it('CANCEL-001: counts the events that carry content, reasoning or tool calls, across pieces cut anywhere, and not role, empty, usage or [DONE] events', () => {
    const stream = [ev({ role: 'assistant', content: '' }), ev({ content: 'Hel' }), ev({ reasoning_content: 'hm' }), ev({ tool_calls: [{ index: 0 }] }), ev({ content: '' }), 'data: {"choices":[],"usage":{}}\n\n', ev({ content: 'lo' }), 'data: [DONE]\n\n'].join('');
    const c = new ContentEvents();
    for (let i = 0; i < stream.length; i += 7) c.feed(stream.slice(i, i + 7), i);
    expect(c.count).toBe(4);
    expect(c.chars).toBe(7);
    expect(c.firstAt).not.toBeNull();
  });

  it('CANCEL-001: a partial last line waits for its end; a line that is not JSON is not counted', () => {
    const c = new ContentEvents();
    expect(c.feed('data: {"choices":[{"delta":{"content":"a"}}]}')).toBe(0);
    expect(c.feed('\r\ndata: not json\n')).toBe(1);
    expect(c.firstAt).not.toBeNull();
  });
});
