import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureLlamaServer, type LlamaServerBuild } from '../../test-support/engines/llama-server-build.ts';
import { startLlamaServer, type LlamaServer } from '../../test-support/engines/llama-server-process.ts';
import { writeTinyModel, type TinyModelVariant } from '../../test-support/engines/tiny-model.ts';

// The engines tier's one way to a running llama-server: build it (or find the cached build), write
// the tiny model, start the server. Where the build cannot be made (no cmake or compiler, no npm
// registry), the suites skip with the reason; under CI (CI=true) the same failure fails them.

/** A cold build is 8-15 minutes on 2 cores; the bound leaves room for a loaded machine. */
export const BUILD_TIMEOUT_MS = 45 * 60_000;
export const START_TIMEOUT_MS = 120_000;
/**
 * A server-side bound on every answer (`-n`): grammar-constrained sampling (tools, schemas) checks
 * the whole 151,936-token vocabulary whenever the model's pick breaks the grammar, 4-25 tokens/s on
 * a quiet 2-core machine and far less on a loaded one; and the random model never ends by itself.
 * The designed model's plain answers end well before it (17-32 tokens).
 */
export const SERVER_MAX_TOKENS = 96;

let building: Promise<LlamaServerBuild> | undefined;

export type Engine = { build: LlamaServerBuild; skip?: undefined } | { build?: undefined; skip: string };

export async function engineBuild(): Promise<Engine> {
  building ??= ensureLlamaServer({ say: (line) => process.stderr.write(`llama-server: ${line}\n`) });
  try {
    return { build: await building };
  } catch (error) {
    if (process.env['CI'] === 'true') throw error;
    return { skip: `llama-server could not be built here: ${(error as Error).message.split('\n')[0] ?? ''}` };
  }
}

export interface RunningEngine {
  server: LlamaServer;
  close(): Promise<void>;
}

/**
 * `--embeddings` serves POST /v1/embeddings; `extraArgs` go after the fixture's own (e.g. `--pooling mean`);
 * `maxTokens`: the server-side bound `-n` (default SERVER_MAX_TOKENS); the cancellation suite wants streams that outlast a cut.
 */
export interface EngineExtras {
  embeddings?: boolean;
  extraArgs?: readonly string[];
  maxTokens?: number;
}

export async function startEngine(build: LlamaServerBuild, variant: TinyModelVariant, apiKey?: string, extras: EngineExtras = {}): Promise<RunningEngine> {
  const dir = mkdtempSync(join(tmpdir(), 'iari-engine-'));
  const model = join(dir, `tiny-${variant}.gguf`);
  writeTinyModel(model, { vocabPath: build.vocabPath, templatePath: build.templatePath, variant });
  try {
    const server = await startLlamaServer({
      binary: build.binary,
      libDir: build.binDir,
      model,
      alias: `tiny-qwen2-${variant}`,
      readyTimeoutMs: START_TIMEOUT_MS,
      // Greedy by default and a fixed seed where a request asks for a temperature: the same
      // answers, and so the same verdicts, on every run.
      extraArgs: ['-n', String(extras.maxTokens ?? SERVER_MAX_TOKENS), '--temp', '0', '--seed', '1', ...(extras.extraArgs ?? [])],
      ...(apiKey !== undefined ? { apiKey } : {}),
      ...(extras.embeddings === true ? { embeddings: true } : {}),
    });
    return {
      server,
      close: async () => {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
