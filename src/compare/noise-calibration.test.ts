import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../errors.ts';
import { sampleLoadResult } from '../../test-support/sample-load-result.ts';
import { meanSummary, studentQuantile } from '../statistics.ts';
import { compareLoad } from './load-compare.ts';
import { assertNoiseCalibration, calibrate, calibratedInterval } from './noise-calibration.ts';

const run = (seed: number): ReturnType<typeof sampleLoadResult> => sampleLoadResult({ seed, durationS: 12, rate: 15, stall: false, errors: false });
const runs = [11, 12, 13, 14].map(run);

function exitCode(f: () => unknown): number {
  try {
    f();
  } catch (error) {
    return isHarnessError(error) ? error.exitCode : -1;
  }
  return 0;
}

describe('noise calibration (iari report noise)', () => {
  it('LOAD-COMPARE: the spread of each key is the sd of ln(value) over the runs, and two single runs differ by t(0.975, n-1)·sd·√2', () => {
    const c = calibrate(runs);
    const values = runs.map((r) => Math.log(r.metrics.ttft?.percentiles.p95 ?? 0));
    const sd = meanSummary(values).sd;
    expect(c.runs).toBe(4);
    expect(c.keys['ttft.p95']).toMatchObject({ runs: 4, scale: 'log' });
    expect(c.keys['ttft.p95']?.sd).toBeCloseTo(sd, 12);
    expect(c.keys['ttft.p95']?.halfWidth).toBeCloseTo(studentQuantile(3) * sd * Math.SQRT2, 12);
    expect(c.keys['errors.rate']?.scale).toBe('absolute');
    expect(c.config.mode).toBe(`rate ${runs[0]?.meta.mode.kind === 'open' ? runs[0].meta.mode.rate : 0}/s`);
    expect(assertNoiseCalibration(JSON.parse(JSON.stringify(c)), 'noise.json')).toEqual(c);
  });

  it('LOAD-COMPARE: a calibration needs 3 runs of one configuration: fewer, or runs of another load, is a usage error (exit 2); a file of another kind is unreadable input (exit 2)', () => {
    expect(exitCode(() => calibrate(runs.slice(0, 2)))).toBe(2);
    const other = { ...run(15), meta: { ...run(15).meta, mode: { kind: 'closed' as const, engine: 'undici' as const, concurrency: 8 } } };
    expect(exitCode(() => calibrate([...runs, other]))).toBe(2);
    expect(exitCode(() => assertNoiseCalibration({ schema: 'iari.compare/2' }, 'x.json'))).toBe(2);
  });

  it('LOAD-COMPARE: the calibrated interval of new - base spans the measured relative spread around the observed ratio', () => {
    const i = calibratedInterval({ runs: 5, scale: 'log', sd: 0, halfWidth: Math.log(1.2) }, 100, 110);
    expect(i?.low).toBeCloseTo(110 / 1.2 - 100, 9);
    expect(i?.high).toBeCloseTo(132 - 100, 9);
    expect(calibratedInterval({ runs: 5, scale: 'absolute', sd: 0, halfWidth: 0.01 }, 0.02, 0.05)).toEqual({ low: 0.05 - 0.02 - 0.01, high: 0.05 - 0.02 + 0.01 });
  });

  it('LOAD-COMPARE: compare widens a row to the wider of its within-run interval and the calibrated spread, and names the calibration as its noise', () => {
    const c = calibrate(runs);
    const plain = compareLoad(run(3), run(4)).find((r) => r.key === 'ttft.p50');
    const wide = compareLoad(run(3), run(4), 1, 0.05, undefined, c).find((r) => r.key === 'ttft.p50');
    expect(plain?.noise).toBeNull();
    expect(wide?.noise).toBe('calibration');
    const cal = calibratedInterval(c.keys['ttft.p50']!, wide?.base ?? 0, wide?.new ?? 0);
    expect(wide?.low).toBe(Math.min(plain?.low ?? 0, cal?.low ?? 0));
    expect(wide?.high).toBe(Math.max(plain?.high ?? 0, cal?.high ?? 0));
  });
});
