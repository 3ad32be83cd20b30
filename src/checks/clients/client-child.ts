import { registerHooks } from 'node:module';
import type { Capability } from '../registry/capabilities.ts';
import type { ChildAsk, ChildDone, ChildToMain, MainToChild, OpFacts } from './client-process-messages.ts';
import type { OpEnv, OpResult } from './client-op-env.ts';
import { RelayedTransport } from './relayed-transport.ts';

// iari's client process (client-process.ts starts it): the JS client libraries' operations run
// here, by name, with what the main process sends (OpFacts) and the relay it points them at. It
// answers one message per operation; it ends when the main process does (the IPC channel closes).

const hidden = process.argv.filter((a) => a.startsWith('--hide=')).map((a) => a.slice('--hide='.length));
if (hidden.length > 0) {
  // A package `npm install --omit=optional` left out, for the tests of `skipped`: its import fails as a missing one does.
  registerHooks({
    resolve(specifier, context, next) {
      if (hidden.some((h) => specifier === h || specifier.startsWith(`${h}/`))) throw Object.assign(new Error(`Cannot find package '${specifier}'`), { code: 'ERR_MODULE_NOT_FOUND' });
      return next(specifier, context);
    },
  });
}

const post = (m: ChildToMain): void => void process.send?.(m);
process.on('disconnect', () => process.exit(0));

const { libraryOps, withConsoleCaptured } = await import('./client-op.ts');
await Promise.all([
  import('../areas/clients-openai.ts'),
  import('../areas/clients-vercel.ts'),
  import('../areas/clients-langchain.ts'),
  import('../areas/clients-agents.ts'),
  import('../areas/clients-openai-responses.ts'),
  import('../areas/clients-reasoning.ts'),
  import('../areas/clients-rate-limit.ts'),
  import('./sdk-ops.ts'),
]);
const { clientErrorText } = await import('./client-transport.ts');

let asks = 0;
const waiting = new Map<number, { resolve(a: unknown): void; reject(e: Error): void }>();

function ask<T>(run: number, q: ChildAsk['q']): Promise<T> {
  const id = ++asks;
  return new Promise<T>((resolve, reject) => {
    waiting.set(id, { resolve: resolve as (a: unknown) => void, reject });
    post({ type: 'ask', run, ask: id, q });
  });
}

/** A result the channel can carry: structured clone, else its JSON (a class instance with a function in it). */
function portable(value: OpResult | 'not-installed'): OpResult | 'not-installed' {
  try {
    return structuredClone(value);
  } catch {
    return JSON.parse(JSON.stringify(value) ?? 'null') as OpResult;
  }
}

/** Operations running now: the libraries' warm-up waits while any runs (module loading would slow its event loop). */
let active = 0;
const whenIdle: (() => void)[] = [];

async function run(m: Extract<MainToChild, { type: 'run' }>): Promise<void> {
  active++;
  try {
    await runOp(m);
  } finally {
    active--;
    if (active === 0) for (const wake of whenIdle.splice(0)) wake();
  }
}

async function runOp(m: Extract<MainToChild, { type: 'run' }>): Promise<void> {
  const op = libraryOps.get(m.name);
  const f: OpFacts = m.facts;
  const env: OpEnv = {
    t: new RelayedTransport(f.baseUrl),
    model: f.model,
    key: f.key,
    sendsToken: f.sendsToken,
    unknownModel: f.unknownModel,
    expects: (cap: Capability) => f.expected.includes(cap),
    caps: () => ask(m.run, { ask: 'caps' }),
    probe: (cap) => ask(m.run, { ask: 'probe', cap }),
  };
  if (op === undefined) {
    post({ type: 'done', run: m.run, logged: [], thrown: `iari's client process has no operation named ${m.name}` });
    return;
  }
  const { outcome, logged } = await withConsoleCaptured(() => op(env));
  const done: ChildDone = 'error' in outcome ? { type: 'done', run: m.run, logged, thrown: clientErrorText(outcome.error) } : { type: 'done', run: m.run, logged, value: portable(outcome.value) };
  post(done);
}

process.on('message', (m: MainToChild) => {
  if (m.type === 'run') void run(m);
  else {
    const w = waiting.get(m.ask);
    waiting.delete(m.ask);
    if (m.error !== undefined) w?.reject(new Error(m.error));
    else w?.resolve(m.a);
  }
});
post({ type: 'ready' });

// The libraries' import, while the main process runs the checks before theirs (issue 41), in the order
// the run first needs them, paused while an operation runs (it imports what it needs itself). One that
// is not installed fails here silently; its operations say so when they run.
for (const load of [() => import('openai'), () => import('openai-v6'), () => import('ai'), () => import('@ai-sdk/openai-compatible'), () => import('ai-v6'), () => import('@ai-sdk/openai-compatible-v2'), () => import('@langchain/openai'), () => import('@langchain/core/messages'), () => import('@openai/agents')]) {
  while (active > 0) await new Promise<void>((resolve) => whenIdle.push(resolve));
  await load().catch(() => undefined);
}
