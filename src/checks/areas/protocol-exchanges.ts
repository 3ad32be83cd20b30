// The checks an API declares as exchanges (Protocol.conformance): each request goes to the API's
// route and its answer through the API's own checker; every finding breaks the requirement its rule
// decides, graded by the judge from the registry like every other judgement. An API beyond the
// seed (Protocol.capability) is judged only where the server serves it, or under --expect.
import type { CheckDef } from '../context/check-types.ts';
import type { ConformanceExchange, Protocol } from '../../protocols/protocol.ts';
import type { ProtocolList } from '../../protocols/registry.ts';
import { rootPath } from '../../protocols/registry.ts';
import { evidence, describeResponse } from '../kernel/evidence.ts';
import { modelUnderTest } from '../requests/common-requests.ts';
import { gate } from '../requests/capability-probes.ts';

function exchangeCheck(protocol: Protocol, x: ConformanceExchange): CheckDef {
  return {
    name: x.name,
    area: 'protocols',
    ids: x.ids,
    title: x.title,
    async run(ctx, j) {
      if (protocol.capability !== undefined && !(await gate(ctx, j, protocol.capability.name))) return;
      const built = protocol.request(x.intent(await modelUnderTest(ctx)));
      const ex = await ctx.http.post(rootPath(built.route), built.body);
      if (ex.status !== 200) {
        j.violated(x.answered, evidence(ex, `${x.name}: answered ${describeResponse(ex)}, not 200`, { expected: 200, received: ex.status }));
        return;
      }
      const checker = protocol.checker(built.sent);
      ex.chunks.forEach((c, i) => checker.feed(c.bytes, BigInt(i)));
      const checked = checker.end();
      if (checked.unusable !== undefined) j.violated(x.answered, evidence(ex, `${x.name}: ${checked.unusable.detail}`));
      for (const f of checked.findings) {
        const id = protocol.rules[f.rule]?.requirement ?? x.answered;
        if (!j.ids.includes(id)) continue;
        j.violated(id, evidence(ex, `${x.name}: ${f.message}`, { ...(f.expected === undefined ? {} : { expected: f.expected }), ...(f.received === undefined ? {} : { received: f.received }), ...(f.pointer === undefined ? {} : { pointer: f.pointer }), ...(f.byteOffset === undefined ? {} : { byteOffset: f.byteOffset }) }));
      }
      for (const id of j.ids) if (!j.has(id)) j.pass(id);
    },
  };
}

/** The exchanges of every API of the run that declares some, in list order. */
export function exchangeChecks(protocols: ProtocolList): CheckDef[] {
  return protocols.flatMap((p) => (p.conformance ?? []).map((x) => exchangeCheck(p, x)));
}
