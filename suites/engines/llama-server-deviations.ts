// What llama.cpp's llama-server (v0.4.0, commit 80fb11ac73e6) does differently from the
// interface, as `iari test` reports it, per configuration of suites/engines/llama-server.test.ts.
// Each entry is reviewed: `owner` says whose the deviation is (the server's, the model's, iari's),
// `reason` the cause and `evidence` the wire evidence (raw samples in research/llama-server-samples/).

export type EngineConfig = 'designed-key' | 'designed-open' | 'random-key';

export interface EngineDeviation {
  verdict: 'fail' | 'non-strict';
  owner: 'server' | 'model' | 'iari';
  reason: string;
  evidence: string;
}

/** A configuration without a table is not reviewed yet: the suite then asserts only that no FAIL is the model's or a cascade, and prints the list. */
const table: Partial<Record<EngineConfig, Record<string, EngineDeviation>>> = {
  'designed-key': {},
};

export function engineDeviations(config: EngineConfig): Readonly<Record<string, EngineDeviation>> | undefined {
  return table[config];
}
