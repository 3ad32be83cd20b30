import { describe, expect, it } from 'vitest';
import { AFTER_STALL_TIMEOUT_MS, Stalls } from './stalls.ts';

describe('Stalls', () => {
  it('HDR-012: until an answer stalls every request gets the whole --request-timeout', () => {
    const s = new Stalls();
    s.completed(50);
    expect(s.deadline(60_000)).toEqual({ ms: 60_000, shortened: false });
    expect(s.blocked(Stalls.kind('GET', '/v1/me', false))).toBeUndefined();
  });

  it('HDR-012: after one stall a new kind gets 10 s, or three times the slowest completed answer, never more than --request-timeout', () => {
    const s = new Stalls();
    s.record(Stalls.kind('POST', '/v1/chat/completions', true), "the server's streams do not end", 'req-1');
    s.completed(120);
    expect(s.deadline(60_000)).toEqual({ ms: AFTER_STALL_TIMEOUT_MS, shortened: true });
    s.completed(15_000);
    expect(s.deadline(60_000)).toEqual({ ms: 45_000, shortened: true });
    s.completed(30_000);
    expect(s.deadline(60_000)).toEqual({ ms: 60_000, shortened: false });
    expect(s.deadline(5_000)).toEqual({ ms: 5_000, shortened: false });
  });

  it('HDR-012: a kind that stalled decides every later request of that kind (not of another), and only whole-deadline stalls are HDR-012 evidence', () => {
    const s = new Stalls();
    const stream = Stalls.kind('POST', '/v1/chat/completions?x=1', true);
    expect(stream).toBe('POST /v1/chat/completions stream');
    const first = s.record(stream, "the server's streams do not end", 'req-1');
    expect(first).toBe("not decided: the server's streams do not end (HDR-012, request id req-1)");
    expect(s.blocked(stream)).toBe(first);
    expect(s.blocked(Stalls.kind('POST', '/v1/chat/completions', false))).toBeUndefined();
    const me = s.record(Stalls.kind('GET', '/v1/me', false), "the server's answers to GET /v1/me do not complete", undefined, 10_000);
    expect(me).toMatch(/^not decided: the server's answers to GET \/v1\/me do not complete within 10 s either, .*\(the server's streams do not end \(HDR-012, request id req-1\)\)$/);
    expect(s.unended).toEqual([first]);
    expect(s.all).toEqual([first, me]);
    expect(s.record(stream, 'again', 'req-2'), 'the first root cause of a kind stays').toBe(first);
  });
});
