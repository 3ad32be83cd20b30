import type { Conversation, Conversations } from '../workloads/conversation.ts';
import { now, sleepMs, type EngineHooks, type EngineLimits, type EngineRun, type EngineTarget } from './engine.ts';
import type { RequestTiming } from '../measure/request-timer.ts';
import { drain, LoopState, report, runClosedSlots, runStop, sendOne, untilDue } from './undici-engine.ts';

/**
 * Conversations on the undici engine. Closed loop: each of N slots holds one conversation from
 * its first turn to its last (think time included), then starts the next. Open loop: the
 * schedule's arrivals are conversations; each turn after the first is due when the previous
 * answer ended plus the think time, and is timed from that instant.
 */

const isAborted = (s: AbortSignal | undefined): boolean => s?.aborted === true;

async function turn(loop: LoopState, target: EngineTarget, limits: EngineLimits, hooks: EngineHooks, convs: Conversations, conv: Conversation, intendedNs: bigint): Promise<RequestTiming | null> {
  const warm = hooks.collector.isWarmup(intendedNs);
  if (loop.budgetSpent(warm)) return null;
  const seq = loop.begin(intendedNs, warm);
  convs.bind(seq, conv);
  const p = sendOne(loop.pool, target, seq, intendedNs, Number(intendedNs - limits.startNs) / 1e9, loop.inFlight, limits.deadlineMs);
  loop.pending.add(p);
  const t = await p;
  loop.pending.delete(p);
  report(hooks, t);
  return t;
}

/** Plays one conversation to its end (or the run's); resolves when it is over. */
async function play(loop: LoopState, target: EngineTarget, limits: EngineLimits, hooks: EngineHooks, convs: Conversations, conv: Conversation, firstNs: bigint, stop: AbortSignal): Promise<void> {
  let intendedNs = firstNs;
  for (;;) {
    if (stop.aborted || intendedNs >= limits.stopNs) return;
    const t = await turn(loop, target, limits, hooks, convs, conv, intendedNs);
    if (t === null) return;
    const more = convs.finish(t.seq, t.extras?.answer, t.error === null && !t.abortedAtEnd, t.extras?.answerId);
    if (!more) {
      if (t.error?.class === 'connect') await sleepMs(100, stop);
      return;
    }
    if (convs.thinkTimeMs > 0) await sleepMs(convs.thinkTimeMs, stop);
    intendedNs = now();
  }
}

export async function runClosedConversations(target: EngineTarget, limits: EngineLimits, concurrency: number, hooks: EngineHooks, convs: Conversations): Promise<EngineRun> {
  const loop = new LoopState(target, limits, hooks);
  return runClosedSlots(loop, limits, hooks, concurrency, async (stop) => {
    while (!stop.aborted && now() < limits.stopNs) {
      const before = loop.issued;
      await play(loop, target, limits, hooks, convs, convs.start(), now(), stop);
      if (loop.issued === before) return;
    }
  });
}

export async function runOpenConversations(target: EngineTarget, limits: EngineLimits, schedule: Iterable<number>, hooks: EngineHooks, convs: Conversations): Promise<EngineRun> {
  const loop = new LoopState(target, limits, hooks);
  const stop = runStop(limits, hooks.signal);
  const playing = new Set<Promise<void>>();
  try {
    for (const s of schedule) {
      const intendedNs = limits.startNs + BigInt(Math.round(s * 1e9));
      if (intendedNs >= limits.stopNs || isAborted(hooks.signal)) break;
      await untilDue(intendedNs, hooks.signal);
      if (isAborted(hooks.signal)) break;
      if (loop.budgetSpent(hooks.collector.isWarmup(intendedNs))) break;
      const p = play(loop, target, limits, hooks, convs, convs.start(), intendedNs, stop.signal);
      playing.add(p);
      void p.finally(() => playing.delete(p));
    }
    const untilStopMs = isAborted(hooks.signal) ? 0 : Math.max(0, Number(limits.stopNs - now()) / 1e6);
    await Promise.race([Promise.allSettled([...playing]), sleepMs(untilStopMs, hooks.signal)]);
    stop.stop();
    await drain(loop.inFlight, loop.pending, limits, limits.drainMs, hooks.signal);
    await Promise.allSettled([...playing]);
  } finally {
    stop.dispose();
    await loop.close();
  }
  return loop.run();
}
