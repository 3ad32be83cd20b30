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

  it('--python: an empty value or a path that is no file is a usage error naming the flag; a bare name is kept for PATH', () => {
    const flag = (name: string): string => `--${name}`;
    expect(() => validateTestOptions({ python: ' ' }, 'iari test', flag)).toThrow(expect.objectContaining({ code: 'IARI_USAGE', exitCode: 2, message: 'iari test: --python needs a Python interpreter (a path, or a name on PATH)' }));
    expect(() => validateTestOptions({ python: '/no/such/dir/python3' }, 'iari test', flag)).toThrow(expect.objectContaining({ code: 'IARI_USAGE', message: 'iari test: --python names no file: /no/such/dir/python3' }));
    expect(validateTestOptions({ python: 'python3.11' }).python).toBe('python3.11');
    expect(validateTestOptions({ python: process.execPath }).python).toBe(process.execPath);
    expect(validateTestOptions({}).python).toBeUndefined();
  });
});
