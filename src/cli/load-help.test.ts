import { describe, expect, it } from 'vitest';
import { documentedFlags } from '../flag-help.ts';
import { LOAD_HELP, LOAD_HELP_SECTIONS } from './load-help.ts';
import { loadFlagSpec } from './load-flags.ts';

describe('iari load --help from one table', () => {
  it('every flag iari load parses has exactly one row in the help table, and the table documents no other', () => {
    const documented = documentedFlags(LOAD_HELP_SECTIONS);
    const parsed = Object.keys(loadFlagSpec).filter((f) => f !== 'help');
    expect([...documented].sort()).toEqual([...parsed].sort());
    expect(new Set(documented).size).toBe(documented.length);
  });

  it('the help shows each row at its column, the connection rows shared with iari test, and the SLO metrics from their tables', () => {
    expect(LOAD_HELP).toMatch(/\n {2}--rate R {15}open loop: R arrivals per second/);
    expect(LOAD_HELP).toMatch(/\n {2}--input-tokens MEAN\[,STDEV\] {3}synthetic prompts/);
    expect(LOAD_HELP).toContain("  --header 'Name: value' extra request header");
    // The run's own durations, then the sections' (reasoning's ttfo).
    expect(LOAD_HELP).toContain('ttfb|ttft|itl|tpot|e2e|service_ttft|service_e2e|schedule_lag|event_loop_lag|ttfo . ');
  });
});
