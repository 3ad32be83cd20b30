// Reads one side of `iari report compare`: a run directory (load.json and/or conformance.json,
// directly or under load/ and conformance/ as the GitHub Action writes them) or one JSON file.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { ConformanceReport } from '../checks/runner/conformance-report.ts';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import type { LoadResult, RequestRecord } from '../load/results/load-result.ts';
import { assertLoadResult } from '../load/results/merge.ts';
import { readRecordFile } from '../load/results/record-log.ts';
import type { AbSection } from '../load/search/ab-blocks.ts';
import { assertNoiseCalibration, type NoiseCalibration } from './noise-calibration.ts';

export interface CompareSide {
  source: string;
  load: LoadResult | null;
  conformance: ConformanceReport | null;
  /** requests.ndjson beside load.json (the 1 s blocks of the ttfb, tpot and output_tps tests), read line by line at each pass; null when absent. */
  records?: Iterable<RequestRecord> | null;
  /** Side A of an A/B run (iari load --ab): its blocks paired with B's. */
  pairs?: AbSection['pairs'] | null;
  /** How the A/B run split the requests (absent: not an A/B run). */
  abOrder?: AbSection['order'];
}

/** A day-long run's requests.ndjson is GBs: it is read line by line, at each pass, never held (issue 43). */
function readRecords(file: string | undefined): Iterable<RequestRecord> | null {
  if (file === undefined) return null;
  return {
    *[Symbol.iterator]() {
      try {
        yield* readRecordFile(file);
      } catch (e) {
        throw e instanceof HarnessError ? unreadable(e.message) : e;
      }
    },
  };
}

function unreadable(message: string): HarnessError {
  return new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `iari report compare: ${message}`);
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw unreadable(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw unreadable(`${file} is not JSON`);
  }
}

function isConformance(v: unknown): v is ConformanceReport {
  const o = v as Partial<ConformanceReport> | null;
  return o !== null && typeof o === 'object' && o.tool?.name === 'iari' && Array.isArray(o.results) && typeof o.summary === 'object';
}

function asSide(source: string, v: unknown, file: string): CompareSide {
  if (isConformance(v)) return { source, load: null, conformance: v, records: null };
  const beside = join(dirname(file), 'requests.ndjson');
  return { source, load: assertLoadResult(v, file), conformance: null, records: readRecords(existsSync(beside) ? beside : undefined) };
}

export function readSide(arg: string): CompareSide {
  if (!existsSync(arg)) throw unreadable(`${arg} does not exist`);
  if (!statSync(arg).isDirectory()) return asSide(arg, readJson(arg), arg);
  const first = (...names: string[]): string | undefined => names.map((n) => join(arg, n)).find((f) => existsSync(f));
  const loadFile = first('load.json', join('load', 'load.json'));
  const confFile = first('conformance.json', join('conformance', 'conformance.json'));
  if (loadFile === undefined && confFile === undefined) throw unreadable(`${arg} holds neither load.json nor conformance.json (also looked in load/ and conformance/)`);
  const load = loadFile === undefined ? null : assertLoadResult(readJson(loadFile), loadFile);
  const confRaw = confFile === undefined ? null : readJson(confFile);
  if (confRaw !== null && !isConformance(confRaw)) throw unreadable(`${confFile} is not an iari conformance report`);
  const records = loadFile === undefined ? null : readRecords(first(join(dirname(relative(arg, loadFile)), 'requests.ndjson')));
  return { source: arg, load, conformance: confRaw, records };
}

/** --noise-floors: a noise.json file, or a directory holding one (iari report noise writes it). */
export function readNoiseCalibration(arg: string): NoiseCalibration {
  if (!existsSync(arg)) throw unreadable(`--noise-floors ${arg} does not exist`);
  const file = statSync(arg).isDirectory() ? join(arg, 'noise.json') : arg;
  return assertNoiseCalibration(readJson(file), file);
}

/**
 * An A/B run (iari load --ab) as the two sides of a comparison: A (load.json) as the base, B (its
 * ab section) as the new side, paired block by block; null when `arg` is not an A/B run.
 */
export function readAbSides(arg: string): { base: CompareSide; next: CompareSide } | null {
  const side = readSide(arg);
  const ab = (side.load as (LoadResult & { ab?: AbSection }) | null)?.ab;
  if (side.load === null || ab === undefined) return null;
  if (!Array.isArray(ab.pairs) || typeof ab.b !== 'object' || ab.b === null) throw unreadable(`${arg}: its ab section has no pairs or no side B`);
  const { ab: _, ...a } = side.load as LoadResult & { ab?: AbSection };
  return {
    base: { source: `${arg} (A)`, load: a as LoadResult, conformance: null, records: side.records ?? null, pairs: ab.pairs, abOrder: ab.order },
    next: { source: `${arg} (B: ${ab.baseUrlB})`, load: assertLoadResult(ab.b, `${arg} ab.b`), conformance: null, records: null },
  };
}
