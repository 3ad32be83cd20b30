import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm, writeFile, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

// Codex CLI (`@openai/codex`, a native binary shipped as the optional dependency
// `@openai/codex-<platform>`) run as `codex exec` against a loopback relay (client-relay.ts): a
// model provider whose wire_api is `responses`, configured in a CODEX_HOME of its own, so nothing
// of the user's ~/.codex (login, providers, MCP servers) is read or written. It runs offline and
// harmless: no update check, analytics, feedback or OpenTelemetry export, no retries, and every
// feature that runs commands, reads files, starts a browser or a daemon, or reaches a host of its
// own (model discovery, plugins, apps, the system proxy) switched off, so a model under test can
// make it do nothing but answer (its shell tool would run what the server's model asks for). The
// process gets PATH and the stand-in key only, works in an empty temporary directory, and is killed
// at its time bound.

/** The platform packages, by Node's platform and architecture (as @openai/codex/bin/codex.js maps them). */
const TARGETS: Readonly<Record<string, readonly [string, string]>> = {
  'linux-x64': ['@openai/codex-linux-x64', 'x86_64-unknown-linux-musl'],
  'linux-arm64': ['@openai/codex-linux-arm64', 'aarch64-unknown-linux-musl'],
  'darwin-x64': ['@openai/codex-darwin-x64', 'x86_64-apple-darwin'],
  'darwin-arm64': ['@openai/codex-darwin-arm64', 'aarch64-apple-darwin'],
  'win32-x64': ['@openai/codex-win32-x64', 'x86_64-pc-windows-msvc'],
  'win32-arm64': ['@openai/codex-win32-arm64', 'aarch64-pc-windows-msvc'],
};

/** Codex features on by default in 0.171 that act beyond answering, or reach another host. */
export const CODEX_DISABLED_FEATURES = [
  'shell_tool', 'unified_exec', 'shell_snapshot', 'view_image', 'multi_agent', 'goals', 'apps', 'plugins', 'remote_plugin', 'browser_use', 'browser_use_external',
  'computer_use', 'image_generation', 'hooks', 'in_app_updates', 'skill_search', 'skill_mcp_dependency_install', 'tool_suggest', 'daemon_auto_start',
  'api_key_model_discovery', 'system_proxy_fallback', 'unbounded_connection_retries', 'sleep_tool', 'code_mode_host',
] as const;

/** The Codex binary for this platform, or why there is none (the package or its platform package not installed). */
export function codexBinary(): { path: string } | { missing: string } {
  const target = TARGETS[`${process.platform}-${process.arch}`];
  if (target === undefined) return { missing: `Codex CLI ships no binary for ${process.platform}-${process.arch}` };
  const [pkg, triple] = target;
  let codexJson: string;
  try {
    codexJson = createRequire(import.meta.url).resolve('@openai/codex/package.json');
  } catch {
    return { missing: 'Codex CLI is not installed (npm install @openai/codex)' };
  }
  let vendor: string;
  try {
    vendor = path.join(path.dirname(createRequire(codexJson).resolve(`${pkg}/package.json`)), 'vendor');
  } catch {
    return { missing: `Codex CLI's binary package ${pkg} is not installed (npm skipped the optional dependency; npm install @openai/codex)` };
  }
  const binary = path.join(vendor, triple, 'bin', process.platform === 'win32' ? 'codex.exe' : 'codex');
  return existsSync(binary) ? { path: binary } : { missing: `Codex CLI's binary is missing from ${pkg} (${binary})` };
}

const KEY_VARIABLE = 'IARI_CODEX_KEY';
const OUTPUT_LIMIT = 4 * 1024 * 1024;

/** The provider and the switches that keep Codex offline, as its config.toml takes them. */
export function codexConfig(baseUrl: string, model: string): string {
  const q = (s: string): string => JSON.stringify(s);
  return [
    `model = ${q(model)}`,
    'model_provider = "iari"',
    'approval_policy = "never"',
    'sandbox_mode = "read-only"',
    'check_for_update_on_startup = false',
    'web_search = "disabled"',
    '',
    '[model_providers.iari]',
    'name = "iari"',
    `base_url = ${q(baseUrl)}`,
    'wire_api = "responses"',
    `env_key = ${q(KEY_VARIABLE)}`,
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[feedback]',
    'enabled = false',
    '',
    '[otel]',
    'exporter = "none"',
    'log_user_prompt = false',
    '',
  ].join('\n');
}

/** One line of `codex exec --json`: thread.started, turn.started, item.completed, turn.completed, turn.failed, error. */
export interface CodexEvent {
  type: string;
  item?: { type?: string; text?: string; message?: string };
  error?: { message?: string };
  message?: string;
}

export interface CodexRun {
  code: number | null;
  signal: string | null;
  events: CodexEvent[];
  /** What Codex wrote to stderr, the last lines. */
  stderr: string;
  timedOut: boolean;
}

/** `codex exec`'s arguments: the features off, no git check, no session kept, JSON events, read-only. */
export function codexExecArgs(prompt: string): string[] {
  return ['exec', ...CODEX_DISABLED_FEATURES.flatMap((f) => ['--disable', f]), '--skip-git-repo-check', '--ephemeral', '--json', '--sandbox', 'read-only', prompt];
}

/** The whole environment Codex gets: PATH, its own home and the stand-in key. */
export function codexEnv(home: string, key: string): NodeJS.ProcessEnv {
  return { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, CODEX_HOME: home, [KEY_VARIABLE]: key };
}

/**
 * Codex writes its working directory (and its home, the sandbox's writable root) into every prompt
 * it sends: a random temporary name would make the server's prompt-token count, and so the usage a
 * run reads back, differ between two runs of one seed. The first free numbered slot under one
 * directory keeps the paths the same from run to run (mkdir is atomic: two runs never share one).
 */
async function claimHome(): Promise<string> {
  const root = path.join(tmpdir(), `iari-codex-${process.getuid?.() ?? 0}`);
  await mkdir(root, { recursive: true, mode: 0o700 });
  for (let slot = 0; ; slot++) {
    const home = path.join(root, String(slot));
    try {
      await mkdir(home, { mode: 0o700 });
      return home;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || slot >= 10_000) throw error;
    }
  }
}

export async function runCodexExec(o: { binary: string; baseUrl: string; key: string; model: string; prompt: string; timeoutMs: number }): Promise<CodexRun> {
  const home = await claimHome();
  try {
    const work = path.join(home, 'work');
    await mkdir(work);
    await writeFile(path.join(home, 'config.toml'), codexConfig(o.baseUrl, o.model));
    const args = codexExecArgs(o.prompt);
    const env = codexEnv(home, o.key);
    return await new Promise<CodexRun>((resolve) => {
      const child = spawn(o.binary, args, { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
      let out = '';
      let err = '';
      let timedOut = false;
      const kill = (): void => {
        try {
          if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
          else child.kill('SIGKILL');
        } catch {
          // already gone
        }
      };
      const timer = setTimeout(() => {
        timedOut = true;
        kill();
      }, o.timeoutMs);
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        if (out.length < OUTPUT_LIMIT) out += d;
        else kill();
      });
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        err = (err + d).slice(-8192);
      });
      const done = (code: number | null, signal: string | null): void => {
        clearTimeout(timer);
        resolve({ code, signal, events: parseEvents(out), stderr: lastLines(err), timedOut });
      };
      child.on('error', (e) => {
        err += `\n${e.message}`;
        done(null, null);
      });
      child.on('close', done);
    });
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

export function parseEvents(out: string): CodexEvent[] {
  const events: CodexEvent[] = [];
  for (const line of out.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const v = JSON.parse(line) as unknown;
      if (typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string') events.push(v as CodexEvent);
    } catch {
      // a line that is not an event (Codex prints its own diagnostics to stderr)
    }
  }
  return events;
}

/** Codex's own warnings about running from a temporary CODEX_HOME are noise; the rest is evidence. */
function lastLines(err: string): string {
  return err
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.includes('could not create PATH aliases') && !l.startsWith('Reading additional input from stdin'))
    .slice(-4)
    .join('\n');
}
