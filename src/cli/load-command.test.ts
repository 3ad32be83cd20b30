import { describe, expect, it } from 'vitest';
import { abSideB } from './load-command.ts';
import { sampleLoadResult } from '../../test-support/sample-load-result.ts';
import type { AbSection } from '../load/search/ab-blocks.ts';

describe('iari load --ab summary (issue 43)', () => {
  it('LOAD-COMPARE: shows side B\'s table beside A\'s, names both servers and the command that compares them pair by pair; a run without --ab adds nothing', () => {
    const a = sampleLoadResult({ seed: 1, stall: false, errors: false });
    const b = sampleLoadResult({ seed: 2, stall: false, errors: false });
    const ab = { schema: 'iari.ab/1', baseUrlB: 'http://127.0.0.1:2/v1', blockS: 3, order: 'ABBA', pairs: [], b } as unknown as AbSection;
    const text = abSideB({ ...a, ab } as typeof a, 'reports/run-1');
    expect(text).toContain(`side A: ${a.meta.baseUrl}; side B: http://127.0.0.1:2/v1`);
    expect(text).toMatch(/\nside B:\niari load: /);
    expect(text).toContain('B against A, pair by pair: iari report compare reports/run-1');
    expect(abSideB(a, 'reports/run-1')).toBe('');
  });
});
