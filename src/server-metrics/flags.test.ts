import { describe, expect, it } from 'vitest';
import { HarnessError } from '../errors.ts';
import { serverMetricsArgv, serverMetricsFromFlags } from './flags.ts';
import { parseServerSlo } from './server-slo.ts';

const usageError = (f: () => unknown): HarnessError => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(HarnessError);
    expect((e as HarnessError).exitCode).toBe(2);
    return e as HarnessError;
  }
  throw new Error('no error');
};

describe('--server-metrics flags', () => {
  it('a lone --server-metrics reads the default URL; a URL after it is taken as given', () => {
    expect(serverMetricsArgv(['--server-metrics', '--duration', '5s'])).toEqual(['--server-metrics=', '--duration', '5s']);
    expect(serverMetricsArgv(['--duration', '5s', '--server-metrics'])).toEqual(['--duration', '5s', '--server-metrics=']);
    expect(serverMetricsArgv(['--server-metrics', 'http://h:9/metrics'])).toEqual(['--server-metrics', 'http://h:9/metrics']);
    expect(serverMetricsFromFlags({ 'server-metrics': '' })).toEqual({ url: null, headers: [], intervalMs: 500 });
    expect(serverMetricsFromFlags({})).toBeNull();
  });

  it('bad values are usage errors naming the flag, and a header value never appears in the message', () => {
    expect(usageError(() => serverMetricsFromFlags({ 'server-metrics': 'ftp://h/metrics' })).message).toMatch(/--server-metrics must be an http\(s\) URL/);
    expect(usageError(() => serverMetricsFromFlags({ 'server-metrics': 'http://u:secretpw@h/metrics' })).message).toMatch(/credentials in --server-metrics-header/);
    expect(usageError(() => serverMetricsFromFlags({ 'server-metrics': '', 'server-metrics-interval': '5ms' })).message).toMatch(/--server-metrics-interval must be between 0.1s and 60s/);
    expect(usageError(() => serverMetricsFromFlags({ 'server-metrics-interval': '1s' })).message).toMatch(/need --server-metrics/);
    const bad = usageError(() => serverMetricsFromFlags({ 'server-metrics': '', 'server-metrics-header': ['X-Key: top\u0001secretvalue'] }));
    expect(bad.message).not.toContain('secretvalue');
    expect(usageError(() => serverMetricsFromFlags({ 'server-metrics': '', 'server-metrics-header': ['X-Key: env:NOPE_NOT_SET'] }, {})).message).toMatch(/\$NOPE_NOT_SET is not set/);
    expect(serverMetricsFromFlags({ 'server-metrics': '', 'server-metrics-header': ['Authorization: env:K'] }, { K: 'Bearer abc' })?.headers).toEqual([{ name: 'Authorization', value: 'Bearer abc' }]);
  });
});

describe('server SLOs', () => {
  it('parses server.reconcile, gauges with max|mean, KV-cache usage as a fraction or a percentage, preemptions with ==', () => {
    expect(parseServerSlo('server.reconcile')).toMatchObject({ stat: 'reconcile', op: '==', threshold: 1 });
    expect(parseServerSlo('server.waiting.max<8')).toMatchObject({ stat: 'waiting.max', op: '<', threshold: 8, unit: 'count' });
    expect(parseServerSlo('server.kv_cache_usage.max<90%')).toMatchObject({ stat: 'kv_cache_usage.max', threshold: 0.9, unit: 'ratio' });
    expect(parseServerSlo('server.preemptions==0')).toMatchObject({ stat: 'preemptions', op: '==', threshold: 0 });
  });

  it('refuses what it cannot judge, saying why', () => {
    expect(parseServerSlo('server.queue.max<3')).toMatch(/unknown server signal "queue"/);
    expect(parseServerSlo('server.waiting<3')).toMatch(/needs a statistic/);
    expect(parseServerSlo('server.kv_cache_usage.max<2')).toMatch(/fraction from 0 to 1/);
    expect(parseServerSlo('server.preemptions.max==0')).toMatch(/takes no statistic/);
    expect(parseServerSlo('server.running.max<5%')).toMatch(/% only applies/);
  });
});
