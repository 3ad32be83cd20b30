import { describe, expect, it } from 'vitest';
import { usageMessage } from '../../test-support/usage-message.ts';
import { parseFlags } from './args.ts';
import { testFlagHelp, testFlagName, testFlagNamer, testFlagSpec, testFlagSpecOf, testOptionsFromFlags, type TestFlagValues } from './test-flags.ts';
import { TEST_FLAGS, TEST_OPTION_KEYS, testOptionKeysOf, type TestFlag } from '../library/test-flag-table.ts';
import { validateTestOptions, type TestOptions } from '../library/test-options.ts';

const rows = TEST_FLAGS as readonly TestFlag[];

/** A section of the help: from its title to the next blank line. */
const section = (help: string, title: string): string => help.slice(help.indexOf(title), help.indexOf('\n\n', help.indexOf(title)));

describe('TEST-FLAGS: one row defines an iari test flag', () => {
  it('a made-up row reaches the parse spec, --help in its section, the option it writes, runConformance\'s keys and the validator, named by flag or by option', () => {
    const retries: TestFlag = { flag: 'example-retries', arg: 'N', section: 'options', parse: 'number', option: 'exampleRetries', rule: { min: 0, max: 5, integer: true }, help: ['retry a failed request N times (an example row)'] };
    const wait: TestFlag = { flag: 'example-wait', arg: 'D', section: 'deadlines', parse: 'duration', option: 'exampleWaitMs', rule: { min: 0, max: 60, integer: false }, help: ['an example deadline'] };
    const mode: TestFlag = { flag: 'example-mode', choices: ['fast', 'thorough'], section: 'options', parse: 'text', option: 'exampleMode', help: ['an example choice'] };
    const table = [...rows, retries, wait, mode];
    expect(testFlagSpecOf(table)['example-retries']).toEqual({ type: 'string' });
    const help = testFlagHelp(table);
    expect(section(help, 'Options:')).toMatch(/\n {2}--example-retries N {2}retry a failed request N times \(an example row\)(\n|$)/);
    expect(section(help, 'Options:')).toContain('\n  --example-mode fast|thorough\n                       an example choice');
    expect(section(help, 'Deadlines')).toContain('\n  --example-wait D     an example deadline');
    const values = { 'example-retries': '3', 'example-wait': '2s', 'example-mode': 'fast' } as TestFlagValues;
    expect(testOptionsFromFlags(values, table)).toMatchObject({ exampleRetries: 3, exampleWaitMs: 2000, exampleMode: 'fast' });
    expect(testOptionKeysOf(table)).toEqual(expect.arrayContaining(['exampleRetries', 'exampleWaitMs', 'exampleMode']));
    // The flag's text: named by the flag.
    expect(usageMessage(() => testOptionsFromFlags({ 'example-retries': 'many' } as TestFlagValues, table))).toBe('iari test: --example-retries must be an integer from 0 to 5, got "many"');
    expect(usageMessage(() => testOptionsFromFlags({ 'example-wait': 'soon' } as TestFlagValues, table))).toBe('iari test: --example-wait must be a duration like 10s, 500ms, 2m, 1h or 1m30s, got "soon"');
    // The range and the set: one check in the validator, named by flag for the CLI and by option for the library.
    const cli = testFlagNamer(table);
    const bad = [
      [{ exampleRetries: 9 }, '--example-retries must be an integer from 0 to 5, got "9"', 'exampleRetries must be an integer from 0 to 5, got "9"'],
      [{ exampleWaitMs: 120_000 }, '--example-wait must be between 0s and 60s, got 120s', 'exampleWaitMs must be between 0s and 60s, got 120s'],
      [{ exampleMode: 'slow' }, '--example-mode must be fast or thorough, got "slow"', 'exampleMode must be fast or thorough, got "slow"'],
    ] as const;
    for (const [options, byFlag, byOption] of bad) {
      expect(usageMessage(() => validateTestOptions(options as TestOptions, 'iari test', cli, table))).toBe(`iari test: ${byFlag}`);
      expect(usageMessage(() => validateTestOptions(options as TestOptions, 'runConformance', undefined, table))).toBe(`runConformance: ${byOption}`);
    }
    expect(() => validateTestOptions({ exampleRetries: 5, exampleWaitMs: 60_000, exampleMode: 'thorough' } as TestOptions, 'iari test', cli, table)).not.toThrow();
    // Without the rows, none of it is there.
    expect(testFlagSpecOf(rows)['example-retries']).toBeUndefined();
    expect(testFlagHelp(rows)).not.toContain('--example-');
    expect(TEST_OPTION_KEYS).not.toContain('exampleRetries');
    expect(() => validateTestOptions({ exampleRetries: 9 } as TestOptions)).not.toThrow();
  });

  it('every real row is parsed, shown in --help, and either a runConformance option named by its flag or a CLI-only flag with its reason', () => {
    const help = testFlagHelp(rows);
    for (const r of rows) {
      if (r.parse !== 'shared') expect(testFlagSpec, r.flag).toHaveProperty([r.flag]);
      expect(help, r.flag).toContain(`--${r.flag}`);
      if (r.cliOnly !== undefined) expect(r.option, r.flag).toBeUndefined();
      else {
        expect(TEST_OPTION_KEYS, r.flag).toContain(r.option);
        if (r.parse !== 'shared') expect(testFlagName(r.option as keyof TestOptions), r.flag).toBe(`--${r.flag}`);
      }
    }
  });

  it('every choice, number and duration row is refused alike by flag and by option', () => {
    const checked = rows.filter((r) => r.cliOnly === undefined && r.parse !== 'member' && (r.choices !== undefined || r.rule !== undefined));
    expect(checked.map((r) => r.flag).sort()).toEqual(['check-timeout', 'grade', 'max-rate-limit-wait', 'pace', 'profile', 'request-timeout', 'run-timeout', 'scope', 'seed']);
    for (const r of checked) {
      const text = r.choices !== undefined ? 'bogus' : r.parse === 'duration' ? `${r.rule!.max * 2}s` : r.parse === 'pace' ? `${r.rule!.max * 2}/s` : String(r.rule!.max + 1);
      const { values } = parseFlags('test', [`--${r.flag}`, text], testFlagSpec);
      const byFlag = usageMessage(() => validateTestOptions(testOptionsFromFlags(values) as TestOptions, 'iari test', testFlagName));
      const byOption = usageMessage(() => validateTestOptions(testOptionsFromFlags(values) as TestOptions));
      expect(byFlag, r.flag).toMatch(new RegExp(`^iari test: --${r.flag} must be `));
      expect(byOption.replace(`runConformance: ${r.option}`, ''), r.flag).toBe(byFlag.replace(`iari test: --${r.flag}`, ''));
    }
    expect(usageMessage(() => testOptionsFromFlags(parseFlags('test', ['--include', 'limits,quota'], testFlagSpec).values))).toBe('iari test: --include must be limits, got "quota"');
    expect(testOptionsFromFlags(parseFlags('test', ['--include', 'limits'], testFlagSpec).values)).toMatchObject({ includeLimits: true });
  });
});
