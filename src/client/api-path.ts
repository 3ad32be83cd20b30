import { HttpCore } from './http-core.ts';
import { Secrets } from './secrets.ts';
import { TOKEN_PLACEHOLDER } from './curl.ts';
import { noConnectionOptions, type ConnectionOptions } from './connection-options.ts';
import { dispatcherFor, withHeaders } from './dispatcher.ts';
import { HarnessError, HarnessErrorCode } from '../errors.ts';

/** Most bytes read of a probe's answer (its status is what counts). */
const PROBE_BODY_BYTES = 64 * 1024;

/**
 * Issue 43: "A wrong base-URL path gets the wrong hint. 'Pass --model' led to 19,715 404s in 3 s.
 * iari test on the same URL printed 149 FAIL lines rather than one exit-2 line, and /v1 is appended
 * to a path silently." Before a run judges a server, it asks whether anything is served under the
 * path: GET <root>/v1/models, and when that answers 404, POST <root>/v1<route> with an empty JSON
 * object (a server that serves the route answers it with a 400 for the body or a 401 for the token).
 * Two 404s: nothing is served there, one line and exit 2, naming the URL iari used and how it came
 * from the one given (/v1 added where the path did not end in it). Any other answer, or none within the budget, lets the run go on to judge it.
 */
export async function assertApiServed(root: string, route: string, token: string, conn: ConnectionOptions = noConnectionOptions, budgetMs = 10_000): Promise<void> {
  const origin = new URL(root).origin;
  const dispatcher = withHeaders(dispatcherFor(conn, origin, { connections: 1 }), origin, conn.headers);
  const secrets = new Secrets();
  secrets.register(token, TOKEN_PLACEHOLDER);
  const core = new HttpCore(dispatcher, secrets, conn.headers);
  const auth: Record<string, string> = token === '' ? {} : { authorization: `Bearer ${token}` };
  const limits = { maxWireBytes: PROBE_BODY_BYTES, maxDecodedBytes: PROBE_BODY_BYTES };
  const deadline = performance.now() + budgetMs;
  const status = async (method: 'GET' | 'POST', path: string): Promise<number | null> => {
    const ms = Math.max(1, Math.round(deadline - performance.now()));
    const res = await core.send({ method, url: `${root}/v1${path}`, headers: method === 'POST' ? { ...auth, 'content-type': 'application/json' } : auth, ...(method === 'POST' ? { body: '{}' } : {}), deadlineMs: ms, limits });
    return res.kind === 'failed' ? null : res.status;
  };
  try {
    if ((await status('GET', '/models')) !== 404) return;
    if ((await status('POST', route)) !== 404) return;
  } finally {
    await dispatcher.destroy().catch(() => undefined);
  }
  const used = `${root}/v1`;
  throw new HarnessError(HarnessErrorCode.CONFIG_INVALID, `nothing is served under ${used}: GET ${used}/models and POST ${used}${route} both answered 404 (a base URL whose path does not end in /v1 gets /v1 added)`, { hint: 'check the path of --base-url: it is the URL an OpenAI client takes as its base URL, e.g. http://127.0.0.1:8080/v1' });
}
