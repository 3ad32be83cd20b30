import { describe, expect, it } from 'vitest';
import { validateTestOptions } from './test-options.ts';

describe('validateTestOptions', () => {
  it("refuses an empty capability name (--expect '', --expect a,,b) naming the flag, exit 2", () => {
    const flag = (name: string): string => `--${name}`;
    for (const given of [[''], ['json-object', ''], ['  ']]) {
      expect(() => validateTestOptions({ expect: given }, 'iari test', flag)).toThrow(expect.objectContaining({ code: 'IARI_USAGE', exitCode: 2, message: "iari test: --expect needs capability names, comma-separated; got an empty one" }));
    }
    expect(() => validateTestOptions({ expect: [''] })).toThrow(/^runConformance: expect needs capability names/);
    expect(validateTestOptions({ expect: ['json-object'] }).expect).toEqual(['json-object']);
    expect(validateTestOptions({}).expect).toEqual([]);
  });
});
