import { gzipSync } from 'node:zlib';
import type { FaultDefinition } from './fault-catalogue.ts';
import type { FullResponse, MockRequest, MockResponse, StreamEvent, StreamResponse } from './types.ts';

// Faults that break a bound iari keeps on what it reads (src/client/body-limits.ts): time, size,
// inflated size, JSON nesting, HTTP framing, event size. They apply only to requests marked
// `x-iari-probe: bounds` (the probes of the bounds check, src/checks/areas/bounds.ts), so that a
// fault changes that check alone and no other check's requests.

const f = (name: string, breaks: string[], description: string): FaultDefinition => ({ name, kind: 'fault', breaks, description });

export const boundsFaults: readonly FaultDefinition[] = [
  f('bounds-endless-body', ['HDR-012'], 'The probed response sends its head, then one space every 100 ms for 2 minutes: bytes keep coming, the body never ends.'),
  f('bounds-oversized-body', ['HDR-013'], 'The probed response is a 17 MiB JSON body.'),
  f('bounds-gzip-bomb', ['HDR-014'], 'The probed response is gzip-encoded, 17 KiB on the wire, inflating to 17 MiB.'),
  f('bounds-deep-json', ['HDR-015'], 'The probed response is JSON nested 100 levels deep.'),
  f('bounds-short-body', ['HDR-016'], 'The probed response declares a Content-Length 1000 bytes longer than its body, then the connection closes.'),
  f('bounds-event-too-long', ['CHAT-STREAM-046'], 'The probed stream carries, before [DONE], one event whose data lines add up to 9 MiB.'),
];

const MiB = 1024 * 1024;
const names = new Set(boundsFaults.map((x) => x.name));
let bomb: Buffer | undefined;

const padded = (bytes: number): string => `{"object":"list","data":[],"padding":"${'x'.repeat(bytes)}"}`;

/** Applies the bounds faults to the response of a probed request; anything else passes through unchanged. */
export function applyBoundsFaults(req: MockRequest, faults: ReadonlySet<string>, res: MockResponse): MockResponse {
  if (req.headers['x-iari-probe'] !== 'bounds' || ![...faults].some((n) => names.has(n))) return res;
  const full = (body: string | Uint8Array, headers: Record<string, string> = {}): FullResponse => ({
    kind: 'full',
    status: 200,
    headers: { 'content-type': 'application/json', ...headers },
    body,
    requestId: res.requestId,
  });
  if (res.kind === 'stream') {
    if (!faults.has('bounds-event-too-long')) return res;
    return withHugeEvent(res);
  }
  if (faults.has('bounds-endless-body')) {
    const events: StreamEvent[] = Array.from({ length: 1200 }, (_, i) => ({ atMs: i * 100, data: ' ', tokens: 0, content: false }));
    return { kind: 'stream', status: 200, headers: { 'content-type': 'application/json' }, requestId: res.requestId, events, framing: [], framingSeed: 0, finish: () => undefined };
  }
  if (faults.has('bounds-oversized-body')) return full(padded(17 * MiB));
  if (faults.has('bounds-gzip-bomb')) {
    bomb ??= gzipSync(padded(17 * MiB), { level: 9 });
    return full(bomb, { 'content-encoding': 'gzip' });
  }
  if (faults.has('bounds-deep-json')) return full(`{"object":"list","data":${'['.repeat(100)}${']'.repeat(100)}}`);
  if (faults.has('bounds-short-body')) return { ...full(padded(100)), declaredLength: padded(100).length + 1000 };
  return res;
}

/** The stream with one 9 MiB event (9,216 data lines of 1 KiB) before its last event. */
function withHugeEvent(s: StreamResponse): StreamResponse {
  const last = s.events[s.events.length - 1];
  const line = `data: ${'x'.repeat(1018)}\n`;
  const huge: StreamEvent = { atMs: last?.atMs ?? 0, data: `${line.repeat(9 * 1024)}\n`, tokens: 0, content: false };
  const events = last === undefined ? [huge] : [...s.events.slice(0, -1), huge, last];
  // The cached wire bytes belong to the original events; without them the adapter writes each event's data.
  const { wire: _wire, ...rest } = s;
  return { ...rest, events };
}
