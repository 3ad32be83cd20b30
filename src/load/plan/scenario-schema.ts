// The JSON Schema of a load scenario (a scenario file, `runScenario()`'s argument, load.json's
// `scenario`). Numeric ranges come from NUMBER_RULES, the workload parts from WORKLOAD_KINDS, so the
// file, the flags and the library refuse the same values. Combinations (a ramp without a rate…) are
// the one validator's (validateLoadOptions).
import { NUMBER_RULES, type NumberOption } from './load-option-names.ts';
import { WORKLOAD_KINDS } from './scenario-workloads.ts';

type Schema = Record<string, unknown>;

const ranged = (option: NumberOption, description: string): Schema => {
  const r = NUMBER_RULES[option] as { min: number; max: number; integer: boolean; aboveMin?: boolean };
  return { type: r.integer ? 'integer' : 'number', ...(r.aboveMin === true ? { exclusiveMinimum: r.min } : { minimum: r.min }), maximum: r.max, description };
};
const duration = (description: string): Schema => ({ type: ['string', 'number'], description: `${description}; e.g. "10s", "500ms", "1m30s" (a bare number is seconds)` });
const text = (description: string): Schema => ({ type: 'string', minLength: 1, description });
const object = (properties: Record<string, Schema>, required: readonly string[] = [], description?: string): Schema => ({
  type: 'object',
  additionalProperties: false,
  properties,
  ...(required.length > 0 ? { required } : {}),
  ...(description === undefined ? {} : { description }),
});
const kind = (k: string): Schema => ({ const: k });

const arrivalFields = {
  rate: ranged('rate', 'arrivals per second'),
  arrival: { enum: ['constant', 'poisson', 'gamma'], description: 'arrival process (default constant; seeded)' },
  burstiness: ranged('burstiness', 'gamma arrivals: the shape K of the gaps'),
  ramp: duration('the rate rises to `rate` over this long'),
  rampShape: { enum: ['linear', 'exponential'] },
};

export const SCENARIO_SCHEMA: Schema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://iari.dev/schemas/load-scenario.json',
  title: 'iari load scenario',
  ...object({
    $schema: { type: 'string' },
    target: object({
      baseUrl: text('the server, http(s)://host[:port][/v1]; absent: the bundled mock (the token is never in a scenario: IARI_TOKEN, --token-env or --token-file)'),
      model: text('model to ask for (default: the first of GET /v1/models)'),
      caFile: text('a private CA (PEM) trusted besides the system\'s'),
      insecure: { type: 'boolean' },
      headers: { type: 'object', additionalProperties: { type: 'string' }, description: 'extra request headers, literal values' },
      connectionReuse: { enum: ['reuse', 'never'], description: 'reuse kept-alive connections (default; a reuse race is sent once more on a fresh one), or a new connection per request' },
    }),
    executor: {
      description: 'how requests are issued',
      oneOf: [
        object({ kind: kind('closed'), concurrency: ranged('concurrency', 'requests in flight (default 8)'), engine: { enum: ['autocannon', 'undici'] } }, ['kind'], 'closed loop'),
        object({ kind: kind('open'), ...arrivalFields }, ['kind', 'rate'], 'open loop: latency from the intended send time'),
        object({ kind: kind('capped'), ...arrivalFields, maxConcurrency: ranged('maxConcurrency', 'at most this many in flight') }, ['kind', 'rate', 'maxConcurrency'], 'open loop capped at maxConcurrency in flight'),
        object({ kind: kind('trace'), speed: ranged('traceSpeed', 'replay X times as fast'), window: text('START-END in trace time, e.g. "60s-120s"'), maxConcurrency: ranged('maxConcurrency', 'at most this many in flight') }, ['kind'], 'the arrivals of the workload\'s trace'),
      ],
    },
    workload: {
      type: 'array',
      description: 'the workload\'s parts, at most one of each kind (none: the built-in prompts)',
      items: {
        oneOf: Object.entries(WORKLOAD_KINDS).map(([k, w]) => object({ kind: kind(k), ...(w.properties as Record<string, Schema>) }, ['kind', ...(w.required as readonly string[])], w.summary)),
      },
    },
    request: object({
      api: text('the API the requests go to: chat-completions (default), responses or embeddings'),
      maxTokens: ranged('maxTokens', 'max_tokens of every request (default 64)'),
      outputTokens: text('output length per request MEAN[,STDEV], sent as max_tokens'),
      maxTokensField: { enum: ['max_tokens', 'max_completion_tokens', 'both'] },
      stream: { type: 'boolean' },
      timeout: duration('idle timeout, reset on every byte (default 30s)'),
      requestTimeout: duration('total deadline of one request (default 120s)'),
      extraBody: { type: ['object', 'string'], description: 'merged into every request body: an object, JSON text or @FILE' },
    }),
    run: object({
      duration: duration('measured time (default 10s unless requests)'),
      requests: ranged('requests', 'stop after this many measured requests'),
      warmup: duration('unmeasured time before the window'),
      seed: ranged('seed', 'seed for arrivals and prompt order (default 1)'),
      shard: text('i/n: this run\'s share of the load'),
    }),
    search: {
      description: 'what runs around the run',
      oneOf: [
        object({ kind: kind('none') }, ['kind']),
        object({ kind: kind('sweep'), steps: ranged('sweepSteps', 'at most this many steps (default 6)') }, ['kind']),
        object({ kind: kind('capacity'), tolerance: text('relative width of the final interval, "5%" or "0.05"'), budget: duration('total time of the search (default 10m)') }, ['kind']),
        object({ kind: kind('repeat'), times: ranged('repeat', 'runs of the same configuration') }, ['kind', 'times']),
        object(
          {
            kind: kind('ab'),
            baseUrl: text("the second server (B), http(s)://host[:port][/v1]; target.baseUrl is A. B's token is never in a scenario: B on A's origin gets A's, else iari load --ab-token-env NAME"),
            block: duration('blocks: one block (default 3s; 1s..60s); random: the window compared pair by pair'),
            blockRequests: ranged('abBlockRequests', 'blocks: each block ends after this many measured requests (then block is its ceiling x10)'),
            assign: { enum: ['blocks', 'random'], description: 'blocks (default): A B, B A, ... one side at a time; random: each request to A or B at random (seeded by run.seed), both at once' },
          },
          ['kind', 'baseUrl'],
          'A/B in one run: the same workload against target.baseUrl (A) and baseUrl (B), compared over paired blocks (iari report compare RUN)',
        ),
      ],
    },
    cancellation: object({
      rate: ranged('cancelRate', 'share of the requests the client cuts (seeded by run.seed); a cut request is counted apart, never an error'),
      after: text('where a request is cut: a duration from its send ("500ms"), "16tokens", "prefill" (before the first token) or "decode" (default: after it, at a seeded point)'),
    }, ['rate'], 'the client cancels a share of its requests (--cancel-rate, --cancel-after)'),
    slos: { type: 'array', items: { type: 'string', minLength: 1 }, description: "thresholds such as 'ttft.p95<800ms'" },
  }),
};
