import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../../errors.ts';
import { readScenarioFile } from './scenario-file.ts';
import { optionsToScenario, scenarioToOptions } from './scenario.ts';

const tmp = mkdtempSync(join(tmpdir(), 'iari-scenario-file-'));
const file = (name: string, text: string): string => {
  const f = join(tmp, name);
  writeFileSync(f, text);
  return f;
};
const refusal = (f: string): string => {
  try {
    readScenarioFile(f);
  } catch (error) {
    if (isHarnessError(error) && error.exitCode === 2) return error.message;
    throw error;
  }
  throw new Error('accepted');
};

describe('scenario files', () => {
  it('a YAML and a JSON file of the same scenario read alike; bare-number durations are seconds', () => {
    const yaml = readScenarioFile(file('a.yaml', 'executor:\n  kind: open\n  rate: 4\n  arrival: poisson\nrun:\n  duration: 30\nslos: [ttft.p95<1s]\n'));
    const json = readScenarioFile(file('a.json', '{"executor":{"kind":"open","rate":4,"arrival":"poisson"},"run":{"duration":"30"},"slos":["ttft.p95<1s"]}'));
    expect(yaml).toEqual(json);
    expect(scenarioToOptions(yaml).options).toEqual({ rate: 4, arrival: 'poisson', duration: '30', slo: ['ttft.p95<1s'] });
  });

  it('a file nested thousands deep is a usage error, not a stack overflow (fuzz finding: RangeError from the yaml parser)', () => {
    // The sequence closed by a later, shallower item: the parser unwinds every level at once.
    expect(refusal(file('deep.yaml', `slos:\n  ${'-  '.repeat(3000)}x\n  - y\n`))).toMatch(/deep\.yaml: not YAML or JSON iari can read: nested too deeply$/);
    expect(refusal(file('deep-top.yaml', `${'- '.repeat(3000)}x\n- y\n`))).toMatch(/nested too deeply$/);
  });

  it('deep unclosed flow collections are refused before the yaml parser, which slows past linear on them (fuzz finding: 35 KB took 2.3 s)', () => {
    expect(refusal(file('flow.yaml', '{"workload":[{"kind"ad":[' + '{"kiind"ad":[{"kiind"ad":['.repeat(1_370)))).toMatch(/flow\.yaml: not YAML or JSON iari can read: nested too deeply$/);
    expect(refusal(file('braces.json', '{'.repeat(30_000)))).toMatch(/nested too deeply$/);
  });

  it('a file whose aliases expand past 100 copies is a usage error, not a ReferenceError (found writing the fuzz target)', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]', 'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]', 'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]', 'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]'].join('\n');
    expect(refusal(file('bomb.yaml', bomb))).toMatch(/bomb\.yaml: not YAML or JSON iari can read: its aliases expand past 100 copies$/);
  });

  it('an error quotes the file\'s keys and values clipped, so it stays one readable line (fuzz finding)', () => {
    const long = 'o'.repeat(5000);
    expect(refusal(file('long.yaml', `executor:\n  kind: ${long}\n`)).length).toBeLessThan(300);
    expect(refusal(file('key.json', JSON.stringify({ run: { [long]: 1 } })))).toMatch(/key\.json:1: run\.o{60}…: unknown key$/);
    // The yaml parser's own message quotes the token it stopped at.
    expect(refusal(file('token.yaml', `{ run: {} }\n\n"${'\n'.repeat(5000)}`)).length).toBeLessThan(400);
  });

  it('an unknown key holding a line feed is quoted as a JSON string, so the error stays one line (fuzz finding by Jazzer.js)', () => {
    const message = refusal(file('newline-key.yaml', '{"e\nexecutor: { kind: open, 5, bu5m },\n\n}"}'));
    expect(message).not.toContain('\n');
    // YAML folds the quoted scalar's first line break into a space and keeps the blank line's.
    expect(message).toMatch(/newline-key\.yaml:1: "e executor: \{ kind: open, 5, bu5m \},\\n\}": unknown key$/);
  });

  it('an error names the file, the line and the key as written', () => {
    expect(refusal(file('b1.yaml', 'executor:\n  kind: open\n  rate: -3\n'))).toBe(`iari load: --scenario ${join(tmp, 'b1.yaml')}:3: executor.rate must be >= 0.01`);
    expect(refusal(file('b2.yaml', 'run:\n  duration: 1s\nexecutor:\n  kind: closed\n  concurency: 3\n'))).toBe(`iari load: --scenario ${join(tmp, 'b2.yaml')}:5: executor.concurency: unknown key`);
    expect(refusal(file('b3.yaml', 'workload:\n  - kind: synthetic\n    inputTokens: "5"\n  - kind: bogus\n'))).toMatch(/b3\.yaml:4: workload\.1\.kind must be one of prompts, synthetic, dataset, conversations, prefixes, tools, trace, embeddings, got "bogus"$/);
    expect(refusal(file('b4.json', '{\n "run": {\n  "duration": "1s",\n  "seed": "x"\n }\n}\n'))).toMatch(/b4\.json:4: run\.seed must be integer$/);
    expect(refusal(file('b5.yaml', 'search:\n  kind: repeat\n'))).toMatch(/b5\.yaml:1: search: needs times$/);
    expect(refusal(file('b6.yaml', 'executor: [\n'))).toMatch(/b6\.yaml:2: not YAML or JSON/);
    expect(refusal(file('b7.yaml', 'workload:\n  - kind: tools\n    tools: builtin\n  - kind: tools\n    tools: builtin\n'))).toMatch(/b7\.yaml:4: workload has two parts of kind tools$/);
  });

  it('a load.json gives the scenario it recorded, at its own lines', () => {
    const recorded = { executor: { kind: 'closed', concurrency: 3 }, run: { duration: '2s' } };
    expect(readScenarioFile(file('load.json', JSON.stringify({ meta: { schema: 'iari.load/1' }, scenario: recorded }, null, 1)))).toEqual(recorded);
    expect(refusal(file('old.json', JSON.stringify({ meta: { schema: 'iari.load/1' } })))).toMatch(/records no scenario/);
    expect(refusal(file('bad-load.json', JSON.stringify({ meta: { schema: 'iari.load/1' }, scenario: { run: { seed: -1 } } }, null, 1)))).toMatch(/bad-load\.json:7: run\.seed must be >= 0$/);
  });

  it('options and scenario map both ways without loss', () => {
    const options = { baseUrl: 'http://127.0.0.1:1/v1', model: 'm', rate: 5, maxConcurrency: 4, arrival: 'gamma' as const, burstiness: 0.5, ramp: '2s', inputTokens: '100', outputTokens: '20', prefixTokens: 30, prefixGroups: 2, tools: 'builtin', toolShare: 0.5, duration: '3s', seed: 3, slo: ['ttft.p95<1s'], extraBody: '{"a":1}' };
    const shell = { findCapacity: true, budget: '1m' };
    const s = optionsToScenario(options, shell);
    expect(s.executor).toEqual({ kind: 'capped', rate: 5, maxConcurrency: 4, arrival: 'gamma', burstiness: 0.5, ramp: '2s' });
    expect(s.search).toEqual({ kind: 'capacity', budget: '1m' });
    expect(scenarioToOptions(s)).toEqual({ options, shell });
  });
});
