import type { CheckHttp } from './check-http.ts';

/** What these helpers read of a check's context. */
type Target = { target: 'bundled-mock' | 'external'; http: CheckHttp };

export interface MockAdmin {
  addModel(id: string): Promise<void>;
  retireModel(id: string): Promise<void>;
}

/**
 * The bundled mock's debug routes (outside /v1), used by checks that must change server state a
 * real server does not let a client change (the model catalogue). Undefined for external servers.
 */
export function mockAdmin(ctx: Target): MockAdmin | undefined {
  if (ctx.target !== 'bundled-mock') return undefined;
  const post = async (path: string, id: string): Promise<void> => {
    const ex = await ctx.http.send('POST', path, { auth: 'none', json: { id }, noFault: true });
    if (ex.status !== 200) throw new Error(`mock admin ${path} answered ${ex.status}`);
  };
  return {
    addModel: (id) => post('/_iari/models/add', id),
    retireModel: (id) => post('/_iari/models/retire', id),
  };
}

/** Bundled mock only: ask the server to fail a stream after `events` events (header x-iari-fail-after-events). */
export function failAfterEventsHeader(ctx: Pick<Target, 'target'>, events: number): Record<string, string> | undefined {
  return ctx.target === 'bundled-mock' ? { 'x-iari-fail-after-events': String(events) } : undefined;
}

/** A latency the bundled mock answers with (its per-request headers, docs/mock-server.md). */
export interface MockLatency {
  ttftMs: number;
  itlMs: number;
  completionTokens: number;
}

/**
 * Bundled mock only: the answer's schedule (x-iari-ttft-ms, x-iari-itl-ms, x-iari-completion-tokens), so
 * that a check can close a stream that is still being written; an external server paces its own answers.
 */
export function mockLatencyHeaders(ctx: Pick<Target, 'target'>, l: MockLatency): Record<string, string> {
  return ctx.target === 'bundled-mock' ? { 'x-iari-ttft-ms': String(l.ttftMs), 'x-iari-itl-ms': String(l.itlMs), 'x-iari-completion-tokens': String(l.completionTokens) } : {};
}
