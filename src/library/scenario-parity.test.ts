// The CLI and runScenario() produce the same plan for every flag (sweep, capacity and repeat
// included): `iari load FLAGS` records its effective scenario, and runScenario() given that scenario
// validates it into the same LoadPlan; every flag of `iari load` has a sample here or a reason.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFlags } from '../cli/args.ts';
import { loadFlagSpec, scenarioFromFlags } from '../cli/load-flags.ts';
import { scenarioPlan } from './run-scenario.ts';
import type { LoadPlan } from '../load/plan/load-options.ts';

const tmp = mkdtempSync(join(tmpdir(), 'iari-scenario-parity-'));
const prompts = join(tmp, 'prompts.jsonl');
writeFileSync(prompts, '{"prompt":"hello"}\n{"messages":[{"role":"user","content":"hi"}]}\n');
const pem = join(tmp, 'ca.pem');
writeFileSync(pem, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
const url = 'http://127.0.0.1:9/v1';
const TOKEN = 'sk-parity-token-0123456789';

/** One sample per flag (with what it needs beside it). */
const SAMPLES: Record<string, string[]> = {
  'base-url': ['--base-url', url],
  model: ['--model', 'tiny-1'],
  concurrency: ['--concurrency', '3'],
  rate: ['--rate', '5'],
  arrival: ['--rate', '5', '--arrival', 'poisson'],
  burstiness: ['--rate', '5', '--arrival', 'gamma', '--burstiness', '0.5'],
  'max-concurrency': ['--rate', '5', '--max-concurrency', '4'],
  ramp: ['--rate', '5', '--ramp', '2s', '--duration', '5s'],
  'ramp-shape': ['--rate', '5', '--ramp', '2s', '--ramp-shape', 'exponential'],
  engine: ['--engine', 'undici'],
  duration: ['--duration', '3s'],
  requests: ['--requests', '20'],
  warmup: ['--warmup', '1.5'],
  prompts: ['--prompts', prompts],
  'max-tokens': ['--max-tokens', '32'],
  stream: ['--stream'],
  'no-stream': ['--no-stream'],
  timeout: ['--timeout', '5s'],
  'request-timeout': ['--request-timeout', '20s'],
  slo: ['--slo', 'ttft.p95<1s', '--slo', 'errors.rate<1%'],
  sweep: ['--sweep', '--duration', '2s'],
  'sweep-steps': ['--sweep', '--sweep-steps', '3', '--duration', '2s'],
  'find-capacity': ['--find-capacity', '--slo', 'ttft.p95<1s'],
  tolerance: ['--find-capacity', '--tolerance', '10%', '--slo', 'ttft.p95<1s'],
  budget: ['--find-capacity', '--budget', '2m', '--slo', 'ttft.p95<1s'],
  shard: ['--shard', '1/4'],
  repeat: ['--repeat', '3'],
  ab: ['--base-url', url, '--ab', 'http://127.0.0.1:10/v1'],
  'ab-block': ['--base-url', url, '--ab', 'http://127.0.0.1:10/v1', '--ab-block', '2s', '--duration', '30s'],
  'ab-block-requests': ['--base-url', url, '--ab', 'http://127.0.0.1:10/v1', '--ab-block-requests', '40'],
  'ab-assign': ['--base-url', url, '--ab', 'http://127.0.0.1:10/v1', '--ab-assign', 'random', '--seed', '3'],
  seed: ['--seed', '9'],
  'ca-file': ['--base-url', url, '--ca-file', pem],
  insecure: ['--base-url', url, '--insecure'],
  header: ['--base-url', url, '--header', 'X-Team: blue', '--header', 'X-Trace: 1'],
  'input-tokens': ['--input-tokens', '100,10'],
  tokenizer: ['--input-tokens', '100,10', '--tokenizer', 'server'],
  'output-tokens': ['--output-tokens', '20,2'],
  'max-tokens-field': ['--output-tokens', '20', '--max-tokens-field', 'both'],
  'extra-body': ['--extra-body', '{"ignore_eos":true}'],
  dataset: ['--dataset', join(tmp, 'sharegpt.json')],
  'dataset-size': ['--dataset', join(tmp, 'sharegpt.json'), '--dataset-size', '10'],
  'prefix-tokens': ['--prefix-tokens', '50'],
  'embeddings-batch': ['--embeddings-batch', '8', '--input-tokens', '30,5'],
  'embeddings-format': ['--embeddings-batch', '2', '--embeddings-format', 'base64'],
  api: ['--api', 'responses'],
  chain: ['--api', 'responses', '--turns', '3', '--chain', 'previous-response-id'],
  'prefix-groups': ['--prefix-tokens', '50', '--prefix-groups', '2'],
  turns: ['--turns', '3,1'],
  'think-time': ['--turns', '3', '--think-time', '1s'],
  trace: ['--trace', join(tmp, 'trace.jsonl')],
  'trace-format': ['--trace', join(tmp, 'trace.jsonl'), '--trace-format', 'mooncake'],
  'trace-speed': ['--trace', join(tmp, 'trace.jsonl'), '--trace-speed', '2'],
  'trace-window': ['--trace', join(tmp, 'trace.jsonl'), '--trace-window', '0-10', '--max-concurrency', '4'],
  tools: ['--tools', 'builtin', '--slo', 'tool_calls.invalid_rate<0.01'],
  'tool-share': ['--tools', 'builtin', '--tool-share', '0.5'],
  'connection-reuse': ['--connection-reuse', 'never'],
  'cancel-rate': ['--cancel-rate', '0.3'],
  'cancel-after': ['--cancel-rate', '0.3', '--cancel-after', '16tokens'],
};

/** Flags that are not part of a run's plan, and why. */
const NOT_IN_A_SCENARIO: Record<string, string> = {
  'token-env': 'the token is never in a scenario (runScenario takes it as an option)',
  'token-file': 'the token is never in a scenario',
  coordinate: 'coordinated shards (issue 39) are a CLI role: runScenario has no coordination options yet',
  coordinator: 'a CLI role, as --coordinate',
  shards: 'with --coordinate',
  'run-token-env': 'the run token is never in a scenario, as the bearer token',
  'register-timeout': 'with --coordinate',
  report: 'where the CLI writes its files',
  json: 'what the CLI prints',
  quiet: 'what the CLI prints',
  help: 'the CLI help',
  scenario: 'the file the scenario is read from',
  'server-metrics': 'what the run reads beside its traffic (src/server-metrics/), not how the traffic is made: a CLI option of the run',
  'server-metrics-interval': 'with --server-metrics',
  'ab-token-env': 'with --ab (a token source, never in a scenario)',
  'server-metrics-header': 'with --server-metrics (its values are secrets, never recorded)',
};

/** The plan without what only the CLI's shell holds (its output). */
const planOf = (p: LoadPlan): Omit<LoadPlan, 'report' | 'json' | 'quiet'> => {
  const { report: _r, json: _j, quiet: _q, ...rest } = p;
  return rest;
};

describe('iari load and runScenario() plan alike', () => {
  it('every flag of iari load has a parity sample or a reason it is not in a scenario', () => {
    const flags = Object.keys(loadFlagSpec).sort();
    expect(flags.filter((f) => SAMPLES[f] === undefined && NOT_IN_A_SCENARIO[f] === undefined)).toEqual([]);
  });

  it.each(Object.entries(SAMPLES))('--%s: the CLI\'s plan and runScenario()\'s plan of the recorded scenario are the same', (_flag, argv) => {
    const env = process.env['IARI_TOKEN'];
    process.env['IARI_TOKEN'] = TOKEN;
    try {
      const cli = scenarioFromFlags(parseFlags('load', argv, loadFlagSpec).values);
      // Header values are never recorded (load.json names headers, never their values): given again, as a user does.
      const headers = cli.plan.connection.headers.length === 0 ? {} : { headers: Object.fromEntries(cli.plan.connection.headers.map((h) => [h.name, h.value])) };
      expect(JSON.stringify(cli.scenario)).not.toContain('blue');
      const lib = scenarioPlan({ ...cli.scenario, target: { ...cli.scenario.target, ...headers } }, cli.plan.baseUrl === null ? undefined : TOKEN);
      expect(planOf(lib.plan)).toEqual(planOf(cli.plan));
      // The scenario runScenario() records is the one it was given: a run from load.json records the same again.
      expect({ ...lib.scenario, target: { ...lib.scenario.target, headers: undefined } }).toEqual({ ...cli.scenario, target: { ...cli.scenario.target, headers: undefined } });
    } finally {
      if (env === undefined) delete process.env['IARI_TOKEN'];
      else process.env['IARI_TOKEN'] = env;
    }
  });

  it('a flag given over a scenario file wins; an executor flag replaces the file\'s executor', () => {
    const file = join(tmp, 'base.yaml');
    writeFileSync(file, 'executor:\n  kind: open\n  rate: 5\n  arrival: poisson\nrun:\n  duration: 30s\n  seed: 4\nslos:\n  - ttft.p95<1s\n');
    const over = scenarioFromFlags(parseFlags('load', ['--scenario', file, '--duration', '2s', '--concurrency', '3'], loadFlagSpec).values);
    expect(over.plan.mode).toEqual({ kind: 'closed', concurrency: 3, engine: 'autocannon' });
    expect([over.plan.durationS, over.plan.seed, over.plan.sloExprs]).toEqual([2, 4, ['ttft.p95<1s']]);
    expect(over.scenario.executor).toEqual({ kind: 'closed', concurrency: 3 });
  });
});
