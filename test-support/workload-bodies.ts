import type { Workload } from '../src/load/workloads/workload.ts';
import { defaultProtocols, protocolNamed } from '../src/protocols/registry.ts';

/** The JSON body of each request of a workload, as the named API writes it (default chat completions). */
export function bodies(w: Pick<Workload, 'intent'>, api = 'chat-completions'): (seq: number) => string {
  const protocol = protocolNamed(defaultProtocols, api);
  return (seq) => JSON.stringify(protocol.request(w.intent(seq)).body);
}
