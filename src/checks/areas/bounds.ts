import type { CheckContext, CheckDef } from '../context/check-types.ts';
import { CheckHttpError, type HttpExchange } from '../http/check-http.ts';
import { evidence } from '../kernel/evidence.ts';
import { chatBody, modelUnderTest, listedModels } from '../requests/common-requests.ts';
import { checkExchange } from '../wire/stream-findings.ts';
import { requirementOfRule } from '../../protocols/chat-completions/stream-rules.ts';
import { at } from '../kernel/evidence.ts';
import { responseLimits } from '../../client/body-limits.ts';
import { CHAT_COMPLETIONS_PATH } from '../../protocols/chat-completions/chat-request.ts';

/** The bounds this check decides (src/client/body-limits.ts): time, size, inflated size, nesting, framing, event size. */
const IDS = ['HDR-012', 'HDR-013', 'HDR-014', 'HDR-015', 'HDR-016', 'CHAT-STREAM-046'] as const;

/**
 * Bundled mock only: marks this check's own probes, so a mock fault that breaks a bound
 * (mock-server/core/bounds-faults.ts) breaks only them and no other check's requests.
 */
function probeHeader(ctx: CheckContext): Record<string, string> {
  return ctx.target === 'bundled-mock' ? { 'x-iari-probe': 'bounds' } : {};
}

const bounds: CheckDef = {
  name: 'headers-response-bounds',
  area: 'bounds',
  ids: [...IDS],
  title: `responses end within the request deadline, stay within 16 MiB on the wire and inflated, nest JSON at most ${responseLimits.jsonDepth} levels, are well-formed HTTP/1.1, and stream events of at most 8 MiB`,
  async run(ctx, j) {
    const headers = probeHeader(ctx);
    // An answer that already passed the whole request deadline (the preflight's, say) is HDR-012's finding as it stands.
    for (const root of ctx.http.stalled.unended) j.violated('HDR-012', { message: root.replace(/^not decided: /, '') });
    // Every other check meets these bounds too (its requests fail naming the ID); this one sends its own two probes.
    const probe = async (what: string, send: () => Promise<HttpExchange>): Promise<HttpExchange | undefined> => {
      try {
        const ex = await send();
        if (ex.violation !== undefined) j.violated(ex.violation.requirementId, evidence(ex, `${what}: ${ex.bodyError ?? ex.violation.message}`));
        return ex;
      } catch (error) {
        if (!(error instanceof CheckHttpError) || error.violation === undefined) throw error;
        j.violated(error.violation.requirementId, { message: `${what}: ${error.message}`, curl: error.curl });
        return undefined;
      }
    };
    const models = await probe('GET /v1/models', () => ctx.http.get('/v1/models', { auth: 'none', headers }));
    const listed = listedModels(models?.json)?.map((m) => at(m, 'id')).find((id): id is string => typeof id === 'string' && id.length > 0);
    const model = listed ?? (await modelUnderTest(ctx));
    const stream = await probe('chat stream', () => ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, model, { stream: true, stream_options: { include_usage: true } }), { headers }));
    if (stream !== undefined && stream.status === 200) {
      for (const f of checkExchange(stream, { includeUsage: true }).findings) {
        if (f.rule !== 'json-too-deep' && f.rule !== 'event-too-long') continue;
        j.violated(requirementOfRule(f.rule), evidence(stream, `chat stream: ${f.message}`, { byteOffset: f.byteOffset }));
      }
    }
    for (const id of IDS) if (!j.has(id)) j.pass(id);
  },
};

export const boundsChecks: CheckDef[] = [bounds];
