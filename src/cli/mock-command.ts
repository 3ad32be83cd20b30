import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { ExitCode } from '../exit-codes.ts';
import { parseFlags, parseIntegerFlag } from './args.ts';
import { isLoopbackHost } from '../client/connection-options.ts';

const USAGE = `iari mock: run the bundled mock server (faithful, or broken on purpose)

  iari mock [--port N] [--host H] [--fault NAME]... [--ttft MS] [--itl MS] [--jitter MS]
            [--tokens-per-chunk N[,N...]] [--capacity N] [--seed N] [--ledger FILE] [--accounts FILE]
            [--no-receipts] [--no-limits] [--receipt-retention N] [--model-cap N]
            [--prefix-cache BLOCKS [--prefix-block-tokens N] [--prefill-us-per-token US]]
  iari mock --list-faults [--json]

  --port N             port to listen on (default 0: a free port)
  --host ADDR          address to listen on (default 127.0.0.1); 0.0.0.0 or :: for every
                       interface, e.g. in a container behind a Kubernetes Service
  --fault NAME         apply a fault or legal mode to every request (repeatable);
                       per request: header x-iari-fault: name[,name]
  --ttft MS            time to first token (default 150)
  --itl MS             inter-token interval (default 15)
  --jitter MS          +/- uniform jitter on both (default 5)
  --tokens-per-chunk   tokens per content chunk, or a pattern cycled through (default 1)
  --capacity N         at most N requests in service at once; the others wait in line (FIFO)
                       and the wait is added to their TTFT, so the capacity is N streams, or
                       N / service time requests per second; a client that leaves frees
                       its slot at once (default unbounded)
  --model-cap N        a model that never ends on its own: every answer runs to the request's
                       max_tokens / max_completion_tokens, or to N tokens (the server's default
                       cap) when it names none, finish_reason length (default off: answers end
                       by themselves after 16-48 tokens)
  --seed N             seed of the deterministic generator (default 0)
  --ledger FILE        append receipts durably to FILE (a restart continues the chain)
  --receipt-retention N
                       Receipts kept in memory per account (default 10000); older ones live
                       only in the ledger (or only as the chain's head and counts), and
                       GET /v1/receipts lists the kept ones with "omitted": how many it leaves out
  --accounts FILE      accounts fixture (default fixtures/accounts.json)
  --no-receipts        turn the receipts extension off (/v1/receipts* answer 404)
  --no-limits          do not enforce requests/tokens per minute
  --prefix-cache BLOCKS  a prefix cache of BLOCKS token blocks (LRU of chained block hashes);
                       usage reports prompt_tokens_details.cached_tokens
  --prefix-block-tokens N  tokens per cache block (default 16)
  --prefill-us-per-token US  prefill time per uncached prompt token, added to TTFT (default 0)
  --list-faults        print every fault: name, kind and the requirement IDs it breaks

The default account's token is IARI_TOKEN when set; otherwise one is generated and shown once.
Docs: docs/mock-server.md
`;

/** Flags of `iari mock` (exported so the Kubernetes manifests' command lines can be checked). */
export const mockFlagSpec = {
  port: { type: 'string' },
  host: { type: 'string' },
  fault: { type: 'string', multiple: true },
  ttft: { type: 'string' },
  itl: { type: 'string' },
  jitter: { type: 'string' },
  'tokens-per-chunk': { type: 'string' },
  capacity: { type: 'string' },
  'model-cap': { type: 'string' },
  seed: { type: 'string' },
  ledger: { type: 'string' },
  accounts: { type: 'string' },
  'no-receipts': { type: 'boolean' },
  'no-limits': { type: 'boolean' },
  'receipt-retention': { type: 'string' },
  'list-faults': { type: 'boolean' },
  'prefix-cache': { type: 'string' },
  'prefix-block-tokens': { type: 'string' },
  'prefill-us-per-token': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function run(argv: string[]): Promise<number> {
  const { values } = parseFlags('mock', argv, mockFlagSpec);
  if (values.help === true) {
    process.stdout.write(USAGE);
    return ExitCode.ok;
  }
  const { faults, faultNames, startMockServer } = await import('../../mock-server/index.ts');
  if (values['list-faults'] === true) {
    if (values.json === true) process.stdout.write(`${JSON.stringify(faults, null, 2)}\n`);
    else {
      const width = Math.max(...faults.map((f) => f.name.length));
      for (const f of faults) process.stdout.write(`${f.name.padEnd(width)}  ${f.kind.padEnd(5)}  ${f.breaks.join(',') || '-'}\n`);
    }
    return ExitCode.ok;
  }
  const host = values.host ?? '127.0.0.1';
  if (host.trim() === '') throw new HarnessError(HarnessErrorCode.USAGE, 'mock: --host needs an address, e.g. 127.0.0.1 or 0.0.0.0');
  if (values.ledger !== undefined && values['no-receipts'] === true) {
    throw new HarnessError(HarnessErrorCode.USAGE, 'mock: --ledger records receipts; it cannot be combined with --no-receipts');
  }
  const selected = values.fault ?? [];
  const unknown = selected.filter((name) => !faultNames.has(name));
  if (unknown.length > 0) {
    throw new HarnessError(HarnessErrorCode.FAULT_UNKNOWN, `mock: unknown fault ${unknown.map((n) => `"${n}"`).join(', ')}`, { hint: 'iari mock --list-faults shows every fault name' });
  }
  const tpc = values['tokens-per-chunk'];
  let tokensPerChunk: number[] | undefined;
  if (tpc !== undefined) {
    tokensPerChunk = tpc.split(',').map((s) => parseIntegerFlag('mock', 'tokens-per-chunk', s.trim(), 1, 10_000) ?? 1);
  }
  const cacheBlocks = parseIntegerFlag('mock', 'prefix-cache', values['prefix-cache'], 1, 100_000_000);
  if (cacheBlocks === undefined && (values['prefix-block-tokens'] !== undefined || values['prefill-us-per-token'] !== undefined)) {
    throw new HarnessError(HarnessErrorCode.USAGE, 'mock: --prefix-block-tokens and --prefill-us-per-token need --prefix-cache BLOCKS');
  }
  const prefixCache =
    cacheBlocks === undefined
      ? undefined
      : {
          capacityBlocks: cacheBlocks,
          blockTokens: parseIntegerFlag('mock', 'prefix-block-tokens', values['prefix-block-tokens'], 1, 4096) ?? 16,
          prefillMsPerToken: (parseIntegerFlag('mock', 'prefill-us-per-token', values['prefill-us-per-token'], 0, 100_000) ?? 0) / 1000,
        };
  const envToken = process.env['IARI_TOKEN'];
  const port = parseIntegerFlag('mock', 'port', values.port, 0, 65_535) ?? 0;
  const server = await startMockServer({
    host,
    port,
    faults: selected,
    ttftMs: parseIntegerFlag('mock', 'ttft', values.ttft, 0, 600_000) ?? 150,
    itlMs: parseIntegerFlag('mock', 'itl', values.itl, 0, 600_000) ?? 15,
    jitterMs: parseIntegerFlag('mock', 'jitter', values.jitter, 0, 600_000) ?? 5,
    seed: parseIntegerFlag('mock', 'seed', values.seed, 0, 2 ** 31 - 1) ?? 0,
    ...(values['model-cap'] === undefined ? {} : { modelCap: parseIntegerFlag('mock', 'model-cap', values['model-cap'], 1, 1_000_000) ?? 1 }),
    ...(values.capacity === undefined ? {} : { capacity: parseIntegerFlag('mock', 'capacity', values.capacity, 1, 1_000_000) ?? 1 }),
    receipts: values['no-receipts'] !== true,
    limits: values['no-limits'] !== true,
    ...(tokensPerChunk === undefined ? {} : { tokensPerChunk }),
    ...(prefixCache === undefined ? {} : { prefixCache }),
    ...(values.ledger === undefined ? {} : { ledger: values.ledger }),
    ...(values['receipt-retention'] === undefined ? {} : { receiptRetention: parseIntegerFlag('mock', 'receipt-retention', values['receipt-retention'], 1, 100_000_000) ?? 0 }),
    ...(values.accounts === undefined ? {} : { accounts: values.accounts }),
  }).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EADDRINUSE' || code === 'EACCES' || code === 'EAI_AGAIN' || code === 'EINVAL') {
      throw new HarnessError(HarnessErrorCode.CONFIG_INVALID, `mock: cannot listen on ${host} port ${port}: ${code}`);
    }
    throw error;
  });
  process.stdout.write(`${server.url}\n`);
  if (envToken === undefined || envToken.length === 0) {
    // Shown once, at start; never logged again.
    process.stdout.write(`token for the default account (shown once): ${server.tokens.default}\n`);
    for (const [account, token] of Object.entries(server.tokens.byAccount)) {
      if (token !== server.tokens.default) process.stdout.write(`token for ${account}: ${token}\n`);
    }
  } else {
    process.stdout.write('default account token: taken from IARI_TOKEN\n');
  }
  if (selected.length > 0) process.stdout.write(`faults: ${selected.join(', ')}\n`);
  if (!isLoopbackHost(host)) {
    process.stdout.write(`listening on ${host}: other machines can reach this mock (its /_iari/ admin routes have no authentication)\n`);
  }
  return new Promise<number>((resolve) => {
    const stop = (code: number) => () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      void server.close().then(() => resolve(code));
    };
    const onInt = stop(ExitCode.interrupted);
    const onTerm = stop(ExitCode.ok);
    process.once('SIGINT', onInt);
    process.once('SIGTERM', onTerm);
  });
}
