import { describe, expect, it } from 'vitest';
import { usageMessage } from '../../../test-support/usage-message.ts';
import { renderSections } from '../../flag-help.ts';
import { parseFlags } from '../../cli/args.ts';
import { helpSectionsOf } from '../../cli/load-help.ts';
import { CLI_ONLY_FLAGS, loadFlagSpec, OPTION_FLAGS, planFromFlags } from '../../cli/load-flags.ts';
import { choiceMessage, choicesOf, flagNumber, flagSpecOf, LOAD_FLAGS, numberRulesOf, RUN_LOAD_OPTION_KEYS, scenarioPathsOf, type LoadFlag } from './load-flag-table.ts';
import { checkChoice, checkNumber, NUMBER_RULES, RUN_LOAD_NAMES, type ChoiceOption, type NumberOption } from './load-option-names.ts';
import { scenarioNames } from './scenario.ts';
import { SCENARIO_SCHEMA } from './scenario-schema.ts';

const rows = LOAD_FLAGS as readonly LoadFlag[];

describe('LOAD-FLAGS: one row defines a flag', () => {
  it('a row added to the table reaches the parse spec, --help in its section, the ranges, the scenario name and the usage error', () => {
    const row: LoadFlag = { flag: 'example-cap', arg: 'N', section: 'load', parse: 'number', option: 'exampleCap', path: 'run.exampleCap', rule: { min: 1, max: 9, integer: true }, help: ['at most N of something (an example row)'] };
    const table = [...rows, row];
    expect(flagSpecOf(table)['example-cap']).toEqual({ type: 'string' });
    const help = renderSections(helpSectionsOf(table));
    const load = help.slice(help.indexOf('Load:'), help.indexOf('Requests:'));
    expect(load).toMatch(/\n {2}--example-cap N {8}at most N of something \(an example row\)\n/);
    expect(numberRulesOf(table)['exampleCap']).toEqual({ min: 1, max: 9, integer: true });
    expect(scenarioPathsOf(table)['exampleCap']).toBe('run.exampleCap');
    expect(flagNumber('iari load', row, ' 7 ')).toBe(7);
    expect(usageMessage(() => flagNumber('iari load', row, '2.5'))).toBe('iari load: --example-cap must be an integer from 1 to 9, got "2.5"');
    const choice: LoadFlag = { flag: 'example-mode', choices: ['fast', 'slow'], section: 'requests', parse: 'text', option: 'exampleMode', help: ['an example choice'] };
    expect(renderSections(helpSectionsOf([...rows, choice]))).toContain('  --example-mode fast|slow   an example choice\n');
    expect(choicesOf([...rows, choice])['exampleMode']).toEqual(['fast', 'slow']);
    expect(choiceMessage('--example-mode', ['fast', 'slow'], 'x')).toBe('--example-mode must be fast or slow, got "x"');
    // Without the row, none of it is there.
    expect(flagSpecOf(rows)['example-cap']).toBeUndefined();
    expect(renderSections(helpSectionsOf(rows))).not.toContain('--example-cap');
  });

  it('every row of the real table is parsed, shown, and either a runLoad option or a CLI-only flag with its reason', () => {
    const help = renderSections(helpSectionsOf(rows));
    for (const r of rows) {
      if (r.parse !== 'shared') expect(loadFlagSpec, r.flag).toHaveProperty([r.flag]);
      expect(help, r.flag).toContain(`--${r.flag}`);
      const offered = Object.values(OPTION_FLAGS) as string[];
      expect(offered.includes(r.negatedBy ?? r.flag) || r.flag in CLI_ONLY_FLAGS, r.flag).toBe(true);
      if (r.option !== undefined && r.cliOnly === undefined) expect(RUN_LOAD_OPTION_KEYS, r.flag).toContain(r.option);
      if (r.option !== undefined && r.cliOnly !== undefined) expect(RUN_LOAD_OPTION_KEYS, r.flag).not.toContain(r.option);
    }
  });

  it('every number row refuses a word and an out-of-range value, and every choice row a value outside its set, by flag, by runLoad option and by scenario field alike', () => {
    const numbers = rows.filter((r) => r.parse === 'number');
    expect(numbers.length).toBeGreaterThan(10);
    for (const r of numbers) {
      const rule = r.rule!;
      expect(NUMBER_RULES[r.option as keyof typeof NUMBER_RULES], r.flag).toEqual(rule);
      const word = usageMessage(() => planFromFlags(parseFlags('load', [`--${r.flag}`, 'many'], loadFlagSpec).values));
      expect(word, r.flag).toMatch(new RegExp(`^iari load: --${r.flag} must be .*${rule.max}\\]?, got "many"$`));
      if (r.cliOnly !== undefined) continue;
      const over = usageMessage(() => checkNumber(RUN_LOAD_NAMES, r.option as NumberOption, rule.max + 1));
      expect(over, r.flag).toMatch(new RegExp(`^runLoad: ${r.option} must be .*${rule.max}\\]?, got "${rule.max + 1}"$`));
      expect(scenarioNames('runScenario').name(r.option as never), r.flag).toBe(r.path ?? r.option);
    }
    // Every choice row: the flag, the option and the scenario schema hold the same set.
    const choices = rows.filter((r) => r.choices !== undefined);
    expect(choices.length).toBeGreaterThanOrEqual(8);
    const schemaText = JSON.stringify(SCENARIO_SCHEMA);
    for (const r of choices) {
      const set = r.choices!;
      expect(usageMessage(() => planFromFlags(parseFlags('load', [`--${r.flag}`, 'bogus'], loadFlagSpec).values)), r.flag).toMatch(new RegExp(`--${r.flag} must be .*${set.at(-1)}, got "bogus"`));
      expect(usageMessage(() => checkChoice(RUN_LOAD_NAMES, r.option as ChoiceOption, 'bogus')), r.flag).toBe(`runLoad: ${r.option} must be ${set.length === 2 ? set.join(' or ') : `${set.slice(0, -1).join(', ')} or ${set.at(-1)}`}, got "bogus"`);
      expect(checkChoice(RUN_LOAD_NAMES, r.option as ChoiceOption, set[0]), r.flag).toBe(set[0]);
      expect(schemaText, r.flag).toContain(JSON.stringify({ enum: set }).slice(1, -1));
    }
    // The schema's range is the row's: executor.concurrency (closed loop) and request.maxTokens.
    const schema = JSON.stringify(SCENARIO_SCHEMA);
    expect(schema).toContain(`"maximum":${NUMBER_RULES.concurrency.max}`);
    expect(schema).toContain(`"maximum":${NUMBER_RULES.maxTokens.max}`);
  });
});
