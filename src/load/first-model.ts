import { HttpClient } from '../client/http-client.ts';
import { parseJsonBounded } from '../client/json-depth.ts';
import { noConnectionOptions, type ConnectionOptions } from '../client/connection-options.ts';
import { dispatcherFor, withHeaders } from '../client/dispatcher.ts';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { isTlsFailure } from '../client/transport-errors.ts';

/** The first listed model: one bounded request (`budgetMs` in all, default 10 s; 4 MiB at most), never a hang on a server that misbehaves. */
export async function firstModel(who: string, baseUrl: string, token: string, conn: ConnectionOptions = noConnectionOptions, budgetMs = 10_000): Promise<string> {
  const ms = Math.max(1, Math.round(budgetMs));
  const origin = new URL(baseUrl).origin;
  const dispatcher = withHeaders(dispatcherFor(conn, origin, { connections: 1 }), origin, conn.headers);
  const client = new HttpClient({ baseUrl, token, dispatcher, timeouts: { connectMs: Math.min(5_000, ms), headersMs: ms, bodyIdleMs: ms, deadlineMs: ms }, maxBodyBytes: 4 * 1024 * 1024 });
  try {
    const res = await client.request({ path: '/v1/models', auth: 'token', keepChunks: false });
    if (res.kind !== 'ok') {
      const message = res.kind === 'timeout' ? `no complete answer within ${ms / 1000} s, the deadline before the run (${res.phase})` : res.kind === 'body-too-large' ? `the body is larger than ${res.limit} bytes` : res.message;
      throw Object.assign(new Error(message), 'code' in res ? { code: res.code } : {});
    }
    const parsed = parseJsonBounded(res.body.toString('utf8'));
    const id = parsed.ok ? (parsed.value as { data?: { id?: unknown }[] } | null)?.data?.[0]?.id : undefined;
    if (res.status === 200 && typeof id === 'string') return id;
    throw new Error(`GET /v1/models answered ${res.status} without a model id${parsed.ok ? '' : ` (${parsed.error})`}`);
  } catch (error) {
    const hint = isTlsFailure(error) ? 'the certificate was not trusted: pass --ca-file PATH for a private CA (or --insecure)' : who === 'iari load' ? 'pass --model ID' : 'pass model';
    throw new HarnessError(HarnessErrorCode.CONFIG_INVALID, `${who}: cannot pick a model: ${(error as Error).message}`, { hint });
  } finally {
    await client.close();
    await dispatcher.destroy().catch(() => undefined);
  }
}
