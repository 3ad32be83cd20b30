// `iari test --baseline FILE --server-version V --write-baseline FILE`: reads the known-failures
// file before any traffic, and writes one from a finished run.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { baselineYaml, readBaseline, type Baseline, type BaselineEntry } from '../checks/runner/baseline-file.ts';
import { requirementInfos } from '../checks/registry/registry-view.ts';
import type { ConformanceReport } from '../checks/runner/conformance-report.ts';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import type { Redactor } from '../report/redact.ts';

export interface BaselineFlags {
  file?: Baseline;
  serverVersion?: string;
  writeTo?: string;
}

export function loadBaselineFlags(file: string | undefined, serverVersion: string | undefined, writeTo: string | undefined): BaselineFlags {
  if (serverVersion !== undefined && serverVersion.trim() === '') throw new HarnessError(HarnessErrorCode.USAGE, 'iari test: --server-version is empty');
  if (writeTo !== undefined && writeTo.trim() === '') throw new HarnessError(HarnessErrorCode.USAGE, 'iari test: --write-baseline needs a file name');
  const ids = new Set(requirementInfos().keys());
  return {
    ...(file === undefined ? {} : { file: readBaseline(file, ids) }),
    ...(serverVersion === undefined ? {} : { serverVersion: serverVersion.trim() }),
    ...(writeTo === undefined ? {} : { writeTo }),
  };
}

const REASON_MAX = 160;

/**
 * The entries a run's failures make: an ID already in `previous` keeps its reason, expiry and server
 * version. An entry of `previous` for another server version than the run's (it was not applied, so
 * the run says nothing about it) is kept as it is, whatever the run found.
 */
export function baselineEntriesOf(report: ConformanceReport, previous: Baseline | undefined): Omit<BaselineEntry, 'line'>[] {
  const before = new Map((previous?.entries ?? []).map((e) => [e.id, e]));
  const out: Omit<BaselineEntry, 'line'>[] = [];
  for (const r of report.results) {
    if (r.verdict !== 'fail' && r.verdict !== 'non-strict' && r.verdict !== 'known') continue;
    const old = before.get(r.id);
    if (old !== undefined) {
      const { line: _line, ...kept } = old;
      out.push(kept);
      continue;
    }
    const message = (r.failures[0]?.message ?? r.verdict).replace(/\s+/g, ' ').trim();
    out.push({ id: r.id, reason: `${r.verdict}: ${message.length > REASON_MAX ? `${message.slice(0, REASON_MAX - 1)}…` : message}` });
  }
  const written = new Set(out.map((e) => e.id));
  for (const e of previous?.entries ?? []) {
    if (e.serverVersion === undefined || e.serverVersion === report.baseline?.serverVersion || written.has(e.id)) continue;
    const { line: _line, ...kept } = e;
    out.push(kept);
  }
  return out;
}

/** Writes the baseline atomically; returns how many entries it holds. */
export function writeBaselineFile(path: string, report: ConformanceReport, previous: Baseline | undefined, redactor: Redactor): number {
  const entries = baselineEntriesOf(report, previous).map((e) => ({ ...e, reason: redactor.string(e.reason) }));
  const header = `iari known failures, written by iari test --write-baseline from run ${report.run.id} against ${report.run.baseUrl}.\nGive each entry a real reason and an expires date (YYYY-MM-DD); see docs/conformance.md.`;
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, redactor.string(baselineYaml(entries, header)));
  renameSync(tmp, path);
  return entries.length;
}
