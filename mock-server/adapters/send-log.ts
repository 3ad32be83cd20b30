import type { StreamEvent } from '../core/types.ts';

// The true write time of every event, per request id, in a bounded ring (oldest dropped first).

export interface SendLogEvent {
  index: number;
  /** Intended time, ms after the response head was written. */
  intendedMs: number;
  /** process.hrtime.bigint() right after the write (0n if never written). */
  writtenNs: bigint;
  /** writtenNs - headNs, in ms. */
  offsetMs: number;
  tokens: number;
  content: boolean;
}

export interface SendLogRecord {
  requestId: string;
  kind: 'stream' | 'full';
  /** hrtime when the request body was fully received. */
  receivedNs: bigint;
  /** hrtime when the response head was written. */
  headNs: bigint;
  completed: boolean;
  interrupted: boolean;
  events: SendLogEvent[];
}

/** One request's log; it keeps compact copies of the schedule, never the event bytes. */
export class SendLogEntry {
  readonly written: BigInt64Array;
  private readonly intended: Float64Array | null;
  private readonly tokens: Uint32Array | null;
  private readonly content: Uint8Array | null;
  headNs = 0n;
  completed = false;
  interrupted = false;

  constructor(
    readonly requestId: string,
    readonly kind: 'stream' | 'full',
    readonly receivedNs: bigint,
    events: readonly StreamEvent[] | null,
  ) {
    const n = events === null ? 1 : events.length;
    this.written = new BigInt64Array(n);
    if (events === null) {
      this.intended = this.tokens = this.content = null;
      return;
    }
    this.intended = new Float64Array(n);
    this.tokens = new Uint32Array(n);
    this.content = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const e = events[i] as StreamEvent;
      this.intended[i] = e.atMs;
      this.tokens[i] = e.tokens;
      this.content[i] = e.content ? 1 : 0;
    }
  }

  record(): SendLogRecord {
    const events: SendLogEvent[] = [];
    const n = this.written.length;
    for (let i = 0; i < n; i++) {
      const writtenNs = this.written[i] ?? 0n;
      events.push({
        index: i,
        intendedMs: this.intended?.[i] ?? 0,
        writtenNs,
        offsetMs: writtenNs === 0n ? -1 : Number(writtenNs - this.headNs) / 1e6,
        tokens: this.tokens?.[i] ?? 0,
        content: this.content === null ? true : this.content[i] === 1,
      });
    }
    return { requestId: this.requestId, kind: this.kind, receivedNs: this.receivedNs, headNs: this.headNs, completed: this.completed, interrupted: this.interrupted, events };
  }
}

export class SendLog {
  private readonly entries = new Map<string, SendLogEntry>();

  constructor(readonly capacity = 10_000) {}

  add(entry: SendLogEntry): void {
    this.entries.set(entry.requestId, entry);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  get(requestId: string): SendLogRecord | undefined {
    return this.entries.get(requestId)?.record();
  }

  ids(limit = 100): string[] {
    return [...this.entries.keys()].slice(-limit);
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}

/** JSON form (bigints as decimal strings) for GET /_iari/send-log. */
export function sendLogJson(record: SendLogRecord): unknown {
  return {
    object: 'send_log',
    request_id: record.requestId,
    kind: record.kind,
    received_ns: record.receivedNs.toString(),
    head_ns: record.headNs.toString(),
    completed: record.completed,
    interrupted: record.interrupted,
    events: record.events.map((e) => ({ index: e.index, intended_ms: e.intendedMs, written_ns: e.writtenNs.toString(), offset_ms: e.offsetMs, tokens: e.tokens, content: e.content })),
  };
}
