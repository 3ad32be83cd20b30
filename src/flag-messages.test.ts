import { testFlagName, testOptionsFromFlags } from './cli/test-flags.ts';
import { describe, expect, it } from 'vitest';
import { usageMessage } from '../test-support/usage-message.ts';
import { parseFlags, parseIntegerFlag } from './cli/args.ts';
import { loadFlagSpec, planFromFlags } from './cli/load-flags.ts';
import { validateTestOptions } from './library/test-options.ts';

describe('LOAD-FLAGS: one wording for a bad flag value in every command', () => {
  it('iari load, iari test, iari mock and the library say "--X must be <range or set>, got "V""', () => {
    expect(usageMessage(() => planFromFlags(parseFlags('load', ['--seed', 'x'], loadFlagSpec).values))).toBe('iari load: --seed must be an integer from 0 to 2147483647, got "x"');
    expect(usageMessage(() => testOptionsFromFlags({ seed: 'x' }))).toBe('iari test: --seed must be an integer from 0 to 2147483647, got "x"');
    expect(usageMessage(() => validateTestOptions(testOptionsFromFlags({ seed: '2147483648' }), 'iari test', testFlagName))).toBe('iari test: --seed must be an integer from 0 to 2147483647, got "2147483648"');
    expect(usageMessage(() => parseIntegerFlag('mock', 'port', '70000', 0, 65_535))).toBe('iari mock: --port must be an integer from 0 to 65535, got "70000"');
    expect(usageMessage(() => planFromFlags(parseFlags('load', ['--engine', 'k6'], loadFlagSpec).values))).toBe('iari load: --engine must be autocannon or undici, got "k6"');
    expect(usageMessage(() => validateTestOptions({ grade: 'some' as never }, 'iari test', (n) => `--${n}`))).toBe('iari test: --grade must be must, should or all, got "some"');
    expect(usageMessage(() => validateTestOptions({ seed: 1.5 }, 'runConformance', (n) => n))).toBe('runConformance: seed must be an integer from 0 to 2147483647, got "1.5"');
  });
});
