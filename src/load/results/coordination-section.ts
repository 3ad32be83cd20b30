// The `coordination` section of load.json (added in 0.1, issue 39), types only and importing
// nothing, so that load-result.ts can name it; it is read through the result-section contract's
// run-record member (coordination/coordination-record.ts). A shard's record says its clock offset and when it started; the
// coordinator's merged record says every shard's, the achieved start skew, the window in which
// all ran, and who stopped the run (src/load/coordination/ builds them).

/** An interval [low, high] around an estimate, in the unit its field names. */
export interface Interval {
  estimate: number;
  low: number;
  high: number;
}

/** Who stopped a coordinated run, and why. */
export interface StopCause {
  shard: number | null;
  cause: 'died' | 'abort_slo' | 'interrupted' | 'failed';
  detail: string;
  /** Coordinator clock, epoch ms. */
  atMs: number;
}

/** One shard's own record (its load.json). Offsets are coordinator minus shard, ms. */
export interface ShardCoordination {
  role: 'shard';
  /** The coordinator's origin (never the run token). */
  coordinator: string;
  /** The agreed start, coordinator clock, epoch ms. */
  t0Ms: number;
  /** How late after t0 the shard could start (it heard the start too late), ms; 0 when on time. */
  lateMs: number;
  offsetStartMs: Interval | null;
  offsetEndMs: Interval | null;
  rttMs: number | null;
  stop: StopCause | null;
  /** Tests only (IARI_TEST_CLOCK_OFFSET_MS): the shift injected into this shard's clock. */
  injectedOffsetMs?: number;
}

export interface CoordinatedShard {
  shard: number;
  host: string;
  offsetStartMs: Interval | null;
  offsetEndMs: Interval | null;
  /** Drift against the coordinator's clock, ppm (null: start and end probes under 1 s apart, or no end probe). */
  driftPpm: Interval | null;
  /** When the shard started, ms after t0 on the coordinator's clock: every instant its offset interval allows. */
  startMs: Interval | null;
  injectedOffsetMs?: number;
  /** Why the shard has no result in the merge (absent: it has one). */
  missing?: string;
}

/** The coordinator's record, on the merged load.json. */
export interface RunCoordination {
  role: 'coordinator';
  t0Ms: number;
  shards: CoordinatedShard[];
  /** The spread of the shards' starts (latest minus earliest), ms: every value their intervals allow. */
  startSkewMs: Interval | null;
  /** The window in which every shard with a result was measuring (coordinator clock, epoch ms); the rates are over its whole seconds. */
  window: { startMs: number; endMs: number; seconds: number };
  /** Who stopped the run and why (null: it ran to its end). */
  stop: StopCause | null;
}

export type Coordination = ShardCoordination | RunCoordination;
