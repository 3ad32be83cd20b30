import { normalizeBaseUrl } from '../../client/base-url.ts';
import { HttpCore, type Ended } from '../../client/http-core.ts';
import { Secrets } from '../../client/secrets.ts';
import { TOKEN_PLACEHOLDER } from '../../client/curl.ts';
import { formatBytes } from '../../client/body-limits.ts';
import { parseJsonBounded } from '../../client/json-depth.ts';
import { noConnectionOptions, type ConnectionOptions } from '../../client/connection-options.ts';
import { dispatcherFor, withHeaders } from '../../client/dispatcher.ts';
import { HarnessError, HarnessErrorCode } from '../../errors.ts';
import { isTlsFailure } from '../../client/transport-errors.ts';

/** Most bytes of the model list read before the run (a list of thousands of models is far smaller). */
const MODELS_BODY_BYTES = 4 * 1024 * 1024;

/** The model a load run sends to when none is named: the first listed one, from one bounded request on the HTTP core (`budgetMs` in all, default 10 s; 4 MiB at most), never a hang on a server that misbehaves. */
export async function defaultLoadModel(who: string, baseUrl: string, token: string, conn: ConnectionOptions = noConnectionOptions, budgetMs = 10_000): Promise<string> {
  const ms = Math.max(1, Math.round(budgetMs));
  const { root, origin } = normalizeBaseUrl(baseUrl);
  const dispatcher = withHeaders(dispatcherFor(conn, origin, { connections: 1 }), origin, conn.headers);
  const secrets = new Secrets();
  secrets.register(token, TOKEN_PLACEHOLDER);
  const core = new HttpCore(dispatcher, secrets, conn.headers);
  const fail = (message: string, error?: unknown): HarnessError => {
    const hint = isTlsFailure(error) ? 'the certificate was not trusted: pass --ca-file PATH for a private CA (or --insecure)' : who === 'iari load' ? 'pass --model ID' : 'pass model';
    return new HarnessError(HarnessErrorCode.CONFIG_INVALID, `${who}: cannot pick a model: ${message}`, { hint });
  };
  try {
    const headers: Record<string, string> = token === '' ? {} : { authorization: `Bearer ${token}` };
    const res = await core.send({ method: 'GET', url: `${root}/v1/models`, headers, deadlineMs: ms, limits: { maxWireBytes: MODELS_BODY_BYTES, maxDecodedBytes: MODELS_BODY_BYTES } });
    if (res.kind === 'failed' || res.ended !== undefined) {
      const ended = res.ended as Ended;
      throw fail(ended.cause === 'deadline' ? `no complete answer within ${ms / 1000} s, the deadline before the run (${res.kind === 'failed' ? 'headers' : 'body'})` : ended.message, ended.error);
    }
    if (res.body.violation !== undefined) throw fail(`the body is larger than ${formatBytes(MODELS_BODY_BYTES)}`);
    const parsed = parseJsonBounded(Buffer.concat(res.body.chunks.map((c) => c.bytes)).toString('utf8'));
    const id = parsed.ok ? (parsed.value as { data?: { id?: unknown }[] } | null)?.data?.[0]?.id : undefined;
    if (res.status === 200 && typeof id === 'string') return id;
    if (res.status === 401 || res.status === 403) throw new HarnessError(HarnessErrorCode.CONFIG_INVALID, `${who}: cannot pick a model: GET ${root}/v1/models answered ${res.status}: the server refused ${token === '' ? 'a request without a token' : 'the token'}`, { hint: token === '' ? 'name the token: IARI_TOKEN, --token-env or --token-file' : 'check the token; --model ID skips the model list, not the server\'s auth' });
    throw fail(`GET /v1/models answered ${res.status} without a model id${parsed.ok ? '' : ` (${parsed.error})`}`);
  } finally {
    await dispatcher.destroy().catch(() => undefined);
  }
}
