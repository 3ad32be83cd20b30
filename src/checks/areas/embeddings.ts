import type { CheckDef } from '../context/check-types.ts';
import type { Judge } from '../kernel/judge.ts';
import type { HttpExchange } from '../http/check-http.ts';
import { evidence, describeResponse } from '../kernel/evidence.ts';
import { modelUnderTest } from '../requests/common-requests.ts';
import { gate, routeProbe } from '../requests/capability-probes.ts';
import { embeddingsRequirementIds, requirementOfEmbeddingsRule } from '../../protocols/embeddings/embeddings-rules.ts';
import { EMBEDDINGS_PATH, embeddingsBody, type EncodingFormat } from '../../protocols/embeddings/embeddings-request.ts';
import { checkEmbeddingsResponse, compareEncodings, type EmbeddingsCheckResult, type EmbeddingsFinding } from '../../protocols/embeddings/embeddings-response.ts';

const INPUTS = ['The quick brown fox jumps over the lazy dog.', 'Embeddings map text to vectors.', 'A third input, so that order shows.'];
const SHAPE = requirementOfEmbeddingsRule('data-invalid');
const DIMENSIONS = requirementOfEmbeddingsRule('dimensions-not-honoured');

/** Each finding is a breach of the requirement its rule decides (the protocol's rule table); the judge grades it. */
function judgeFindings(j: Judge, ex: HttpExchange, what: string, findings: readonly EmbeddingsFinding[]): void {
  for (const f of findings) {
    j.violated(requirementOfEmbeddingsRule(f.rule), evidence(ex, `${what}: ${f.message}`, { pointer: f.pointer, ...(f.expected === undefined ? {} : { expected: f.expected }), ...(f.received === undefined ? {} : { received: f.received }) }));
  }
}

async function embed(ctx: Parameters<CheckDef['run']>[0], input: string | string[], options: { encodingFormat?: EncodingFormat; dimensions?: number }): Promise<HttpExchange> {
  return ctx.http.post(EMBEDDINGS_PATH, embeddingsBody(await modelUnderTest(ctx), input, options));
}

const embeddings: CheckDef = {
  name: 'embeddings',
  area: 'embeddings',
  ids: [...embeddingsRequirementIds],
  title: 'POST /v1/embeddings answers a list of one numeric vector per input, in input order, with usage; base64 decodes to the same float32 values; dimensions, where honoured, shortens every vector',
  async run(ctx, j) {
    // Not in the seed: embeddings are a capability (capabilities.ts), judged where the server serves them.
    if (!(await gate(ctx, j, 'embeddings'))) return;
    const single = await routeProbe(ctx, 'embeddings');
    const answered = (ex: HttpExchange, what: string): boolean => {
      if (ex.status === 200) return true;
      j.violated(SHAPE, evidence(ex, `${what} answered ${describeResponse(ex)}, not 200`, { expected: 200, received: ex.status }));
      return false;
    };
    const checked = (ex: HttpExchange, what: string, sent: Parameters<typeof checkEmbeddingsResponse>[1]): EmbeddingsCheckResult | undefined => {
      if (!answered(ex, what)) return undefined;
      const r = checkEmbeddingsResponse(ex.json, sent);
      judgeFindings(j, ex, what, r.findings);
      return r;
    };
    checked(single, 'one string', { inputs: 1 });
    // Compat, CreateEmbeddingRequest.encoding_format: "Can be either float or base64".
    const floatEx = await embed(ctx, INPUTS, { encodingFormat: 'float' });
    const floats = checked(floatEx, `${INPUTS.length} strings as float`, { inputs: INPUTS.length, encodingFormat: 'float' });
    const b64Ex = await embed(ctx, INPUTS, { encodingFormat: 'base64' });
    const b64 = checked(b64Ex, `${INPUTS.length} strings as base64`, { inputs: INPUTS.length, encodingFormat: 'base64' });
    if (floats !== undefined && b64 !== undefined) judgeFindings(j, b64Ex, 'base64 against float', compareEncodings(floats.vectors, b64.vectors));
    // Compat, CreateEmbeddingRequest.dimensions: judged only where the server honours it.
    const full = floats?.dimensions ?? b64?.dimensions;
    if (full === undefined || full < 2) j.skip(DIMENSIONS, 'no vector of two or more values to shorten');
    else {
      const d = Math.floor(full / 2);
      const one = await embed(ctx, INPUTS[0] as string, { dimensions: d });
      const length = one.status === 200 ? checkEmbeddingsResponse(one.json, { inputs: 1 }).dimensions : undefined;
      if (one.status !== 200) j.skip(DIMENSIONS, `dimensions ${d} answered ${one.status}: the server does not take dimensions`);
      else if (length === full) j.skip(DIMENSIONS, `the server ignores dimensions (asked ${d}, got ${full} values), as llama.cpp's server does`);
      else checked(await embed(ctx, INPUTS, { dimensions: d }), `${INPUTS.length} strings with dimensions ${d}`, { inputs: INPUTS.length, dimensions: d });
    }
    for (const id of j.ids) if (!j.has(id)) j.pass(id);
  },
};

export const embeddingsChecks: CheckDef[] = [embeddings];
