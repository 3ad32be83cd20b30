import { afterEach, describe, expect, it } from 'vitest';
import { isHarnessError } from '../../errors.ts';
import { checkNumber, NUMBER_RULES, RUN_LOAD_NAMES, type NumberOption } from './load-option-names.ts';
import { validateLoadOptions } from './load-options.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../executors/engine.ts';
import { planFromFlags, scenarioFromFlags } from '../../cli/load-flags.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function refusal(f: () => unknown): { code: string; message: string } | 'accepted' {
  try {
    f();
    return 'accepted';
  } catch (error) {
    if (isHarnessError(error)) return { code: error.code, message: error.message };
    throw error;
  }
}

describe('typed load options (validateLoadOptions)', () => {
  afterEach(() => {
    delete process.env['IARI_TOKEN'];
  });

  it('LOAD-LIBRARY: every numeric option takes its bounds and refuses what lies outside, NaN, Infinity, text, and a fraction where an integer is due', () => {
    for (const [option, rule] of Object.entries(NUMBER_RULES) as [NumberOption, (typeof NUMBER_RULES)[NumberOption]][]) {
      const lowest = 'aboveMin' in rule ? rule.min + 0.5 : rule.min;
      expect(checkNumber(RUN_LOAD_NAMES, option, lowest), option).toBe(lowest);
      expect(checkNumber(RUN_LOAD_NAMES, option, rule.max), option).toBe(rule.max);
      const bad: unknown[] = [rule.min - 1, rule.max + 1, Number.NaN, Number.POSITIVE_INFINITY, String(rule.max), undefined, ...('aboveMin' in rule ? [rule.min] : [])];
      if (rule.integer) bad.push(rule.min + 0.5);
      for (const value of bad) {
        expect(refusal(() => checkNumber(RUN_LOAD_NAMES, option, value)), `${option} ${String(value)}`).toMatchObject({ code: 'IARI_USAGE', message: expect.stringMatching(new RegExp(`^runLoad: ${option} must be `)) });
      }
    }
  });

  it('LOAD-LIBRARY: the defaults of a bare run are those of a bare iari load: closed loop of 8, 10 s, 30 s idle and the default request deadline, 64 tokens, seed 1, streamed', () => {
    const plan = validateLoadOptions({});
    expect(plan).toMatchObject({ baseUrl: null, token: null, mode: { kind: 'closed', concurrency: 8, engine: 'autocannon' }, durationS: 10, requests: null, warmupS: 0, timeoutMs: 30_000, requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS, maxTokens: 64, seed: 1, stream: true, sweep: false, repeat: 1, findCapacity: null });
  });

  it('LOAD-LIBRARY: the library never reads a token from the environment: a base URL without a token is refused even with IARI_TOKEN set', () => {
    process.env['IARI_TOKEN'] = 'sk-from-the-environment-0123';
    expect(refusal(() => validateLoadOptions({ baseUrl: 'http://127.0.0.1:9/v1' }))).toMatchObject({ code: 'IARI_TOKEN_MISSING', message: expect.stringMatching(/^runLoad: /) });
    expect(validateLoadOptions({ baseUrl: 'http://127.0.0.1:9', token: 'sk-given-0123456789' })).toMatchObject({ baseUrl: 'http://127.0.0.1:9/v1', token: 'sk-given-0123456789' });
  });

  it('LOAD-LIBRARY: options of the wrong type are refused, never converted: a duration as a number, a list of SLOs as one text', () => {
    expect(refusal(() => validateLoadOptions({ duration: 10 as unknown as string }))).toMatchObject({ code: 'IARI_USAGE', message: 'runLoad: duration must be a duration like 10s, 500ms, 2m, 1h or 1m30s, got 10' });
    expect(refusal(() => validateLoadOptions({ slo: 'ttft.p95<1s' as unknown as string[] }))).toMatchObject({ code: 'IARI_USAGE', message: expect.stringMatching(/^runLoad: slo must be a list/) });
    expect(refusal(() => validateLoadOptions({ turns: 4 as unknown as string }))).toMatchObject({ code: 'IARI_USAGE', message: 'runLoad: turns must be a string, got number' });
  });

  it('LOAD-LIBRARY: connectionReuse (--connection-reuse) is reuse by default, takes never, and refuses anything else by its name in each shell', () => {
    expect(validateLoadOptions({}).connectionReuse).toBe('reuse');
    expect(validateLoadOptions({ connectionReuse: 'never' }).connectionReuse).toBe('never');
    expect(planFromFlags({ 'connection-reuse': 'never' }).connectionReuse).toBe('never');
    expect(refusal(() => validateLoadOptions({ connectionReuse: 'sometimes' as 'never' }))).toEqual({ code: 'IARI_USAGE', message: 'runLoad: connectionReuse must be reuse or never, got "sometimes"' });
    expect(refusal(() => planFromFlags({ 'connection-reuse': 'close' }))).toEqual({ code: 'IARI_USAGE', message: 'iari load: --connection-reuse must be reuse or never, got "close"' });
  });
});

describe('--cancel-rate and --cancel-after (cancelRate, cancelAfter)', () => {
  it('LOAD-CANCEL: the plan carries the rate, the point and its text; decode is the default point', () => {
    expect(validateLoadOptions({}).cancellation).toBeUndefined();
    expect(validateLoadOptions({ cancelRate: 0.3 }).cancellation).toEqual({ rate: 0.3, after: { kind: 'decode' }, text: 'decode' });
    expect(planFromFlags({ 'cancel-rate': '1', 'cancel-after': '500ms', 'no-stream': true }).cancellation).toEqual({ rate: 1, after: { kind: 'ms', ms: 500 }, text: '500ms' });
    expect(planFromFlags({ 'cancel-rate': '0.5', 'cancel-after': '16tokens', rate: '4' }).cancellation?.after).toEqual({ kind: 'tokens', n: 16 });
  });

  it('LOAD-CANCEL: a bad value or an unsupported combination is a usage error naming the flag (or the option) before any traffic', () => {
    const flags = (v: Record<string, string | boolean>): ReturnType<typeof refusal> => refusal(() => planFromFlags(v));
    expect(flags({ 'cancel-after': 'prefill' })).toEqual({ code: 'IARI_USAGE', message: 'iari load: --cancel-after needs --cancel-rate (the share of requests the client cuts)' });
    expect(flags({ 'cancel-rate': '0' })).toEqual({ code: 'IARI_USAGE', message: 'iari load: --cancel-rate must be a number in (0, 1], got "0"' });
    expect(flags({ 'cancel-rate': '1.5' })).toEqual({ code: 'IARI_USAGE', message: 'iari load: --cancel-rate must be a number in (0, 1], got "1.5"' });
    expect(flags({ 'cancel-rate': '0.3', 'cancel-after': 'later' })).toEqual({ code: 'IARI_USAGE', message: 'iari load: --cancel-after must be a duration (500ms), Ntokens (16tokens), prefill or decode, got "later"' });
    expect(flags({ 'cancel-rate': '0.3', engine: 'autocannon' })).toMatchObject({ code: 'IARI_USAGE', message: expect.stringMatching(/^iari load: --cancel-rate cuts requests in the middle of their answer, which only the undici engine can do: give --engine undici/) });
    expect(flags({ 'cancel-rate': '0.3', 'cancel-after': 'prefill', 'no-stream': true })).toEqual({ code: 'IARI_USAGE', message: 'iari load: --cancel-after prefill counts tokens as they stream: not with whole (non-streamed) answers; give a duration (e.g. 500ms)' });
    expect(refusal(() => validateLoadOptions({ cancelAfter: 'decode' }))).toEqual({ code: 'IARI_USAGE', message: 'runLoad: cancelAfter needs cancelRate (the share of requests the client cuts)' });
    expect(refusal(() => validateLoadOptions({ cancelRate: '0.3' as unknown as number }))).toEqual({ code: 'IARI_USAGE', message: 'runLoad: cancelRate must be a number, got the text "0.3"' });
  });

  it("LOAD-CANCEL: load.json's effective scenario records the cancellation, and --scenario on it (schema-checked) plans the same cut", () => {
    const { plan, scenario } = scenarioFromFlags({ 'cancel-rate': '0.3', 'cancel-after': 'prefill', seed: '9' });
    expect(scenario.cancellation).toEqual({ rate: 0.3, after: 'prefill' });
    const file = join(mkdtempSync(join(tmpdir(), 'iari-cancel-scenario-')), 'load.json');
    writeFileSync(file, JSON.stringify({ meta: { schema: 'iari.load/1' }, scenario }));
    const again = planFromFlags({ scenario: file });
    expect(again.cancellation).toEqual(plan.cancellation);
    expect(again.seed).toBe(9);
    writeFileSync(file, JSON.stringify({ cancellation: { rate: 2 } }));
    expect(refusal(() => planFromFlags({ scenario: file }))).toMatchObject({ code: 'IARI_USAGE' });
  });

  it('LOAD-SOAK: iari load runs up to 24h (records stream to disk) as one plain run; the library and the searches stay within the hour', () => {
    expect(planFromFlags({ duration: '24h' }).durationS).toBe(86_400);
    expect(refusal(() => planFromFlags({ duration: '25h' }))).toMatchObject({ code: 'IARI_USAGE' });
    expect(refusal(() => planFromFlags({ duration: '2h', sweep: true }))).toEqual({ code: 'IARI_USAGE', message: 'iari load: --duration over 1h is a single run (records stream to requests.ndjson): not with --sweep, --find-capacity, --ab or --repeat' });
    expect(refusal(() => planFromFlags({ duration: '2h', repeat: '3' }))).toMatchObject({ code: 'IARI_USAGE' });
    expect(planFromFlags({ duration: '1h', sweep: true }).durationS).toBe(3600);
    expect(refusal(() => validateLoadOptions({ duration: '2h' }))).toEqual({ code: 'IARI_USAGE', message: 'runLoad: duration over 1h keeps every request record in memory here (about 361 B each); runs up to 24h are iari load\'s, whose records stream to requests.ndjson' });
    expect(validateLoadOptions({ duration: '1h' }).durationS).toBe(3600);
  });
});
