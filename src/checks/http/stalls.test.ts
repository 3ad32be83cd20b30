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

  it('HDR-012: guard admits a new kind with the whole deadline, and its late answer is the deadline violation and the root cause of its kind', () => {
    const s = new Stalls();
    const g = s.guard({ method: 'POST', path: '/v1/chat/completions?x=1', streamed: true });
    if (g.kind !== 'admitted') throw new Error(`refused: ${g.root}`);
    const d = g.deadline(60_000);
    expect(d).toMatchObject({ ms: 60_000, shortened: false });
    const late = d.expired('req-9');
    expect(late).toEqual({ kind: 'deadline', violation: { kind: 'deadline', requirementId: 'HDR-012', message: 'no complete response within the request deadline of 1 min (--request-timeout) (HDR-012)' } });
    expect(s.guard({ method: 'POST', path: '/v1/chat/completions', streamed: true })).toEqual({ kind: 'refused', root: "not decided: the server's streams do not end (HDR-012, request id req-9)" });
    expect(s.unended).toHaveLength(1);
  });

  it('HDR-012: guard gives a new kind the shortened deadline after a stall, taken when the request goes, and its late answer is not decided', () => {
    const s = new Stalls();
    const g = s.guard({ method: 'GET', path: '/v1/me', streamed: false });
    if (g.kind !== 'admitted') throw new Error('refused');
    // A stall recorded while the request waited for the throttle shortens its deadline.
    s.record(Stalls.kind('POST', '/v1/chat/completions', true), "the server's streams do not end", 'req-1');
    const d = g.deadline(60_000);
    expect(d).toMatchObject({ ms: AFTER_STALL_TIMEOUT_MS, shortened: true });
    const late = d.expired(undefined);
    expect(late.kind).toBe('not-decided');
    if (late.kind === 'not-decided') expect(late.root).toMatch(/^not decided: the server's answers to GET \/v1\/me do not complete within 10 s either, /);
    expect(s.unended).toHaveLength(1);
    expect(s.guard({ method: 'GET', path: '/v1/me', streamed: false }).kind).toBe('refused');
    expect(s.guard({ method: 'GET', path: '/v1/me', streamed: false, probe: 'x' }).kind).toBe('admitted');
  });
});
