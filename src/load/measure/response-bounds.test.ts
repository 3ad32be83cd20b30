import { describe, expect, it } from 'vitest';
import { ByteBudget, encodingBreach } from './response-bounds.ts';
import { headDecision } from './timing-builder.ts';

describe('response bounds of iari load', () => {
  it('HDR-013: a Content-Length over the limit fails the response at its head, with the class of what was asked', () => {
    const whole = new ByteBudget(false, 1000).declare('2147483648');
    expect(whole?.errorClass).toBe('body_invalid');
    expect(whole?.message).toMatch(/longer than .*\(Content-Length 2147483648\); iari did not read it \(HDR-013\)/);
    expect(new ByteBudget(true, 1000).declare(' 1001 ')?.errorClass).toBe('stream_nonconforming');
  });

  it('HDR-013: a Content-Length within the limit, or one that is not a number, leaves the count to the reads', () => {
    for (const v of ['1000', '0', 'abc', '-5', '1e9', '', null, undefined]) expect(new ByteBudget(false, 1000).declare(v), String(v)).toBeUndefined();
    const b = new ByteBudget(false, 1000);
    expect(b.declare('10')).toBeUndefined();
    expect(b.add(1000)).toBeUndefined();
    expect(b.add(1)?.message).toMatch(/iari stopped reading it \(HDR-013\)/);
    expect(b.add(1), 'a breach is reported once').toBeUndefined();
  });

  it('HDR-014: a content coding other than identity fails at the head', () => {
    expect(encodingBreach('gzip', true)?.errorClass).toBe('stream_nonconforming');
    expect(encodingBreach(' Identity ', false)).toBeUndefined();
    expect(encodingBreach(null, false)).toBeUndefined();
  });

  it('CHAT-STREAM-001: a stream answered without text/event-stream is failed at its head; an error status skips its body; the rest is checked', () => {
    expect(headDecision(true, 200, 'application/json')).toBe('failed');
    expect(headDecision(true, 200, null)).toBe('failed');
    expect(headDecision(true, 200, 'Text/Event-Stream; charset=utf-8')).toBe('check');
    expect(headDecision(false, 200, 'application/json')).toBe('check');
    expect(headDecision(false, 200, 'text/html')).toBe('check');
    for (const s of [301, 429, 500]) expect(headDecision(true, s, 'text/event-stream')).toBe('skip-body');
  });
});
