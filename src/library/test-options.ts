import { existsSync } from 'node:fs';
// The options of a conformance run, validated once for both shells: `iari test` parses its flags
// into TestOptions, the library takes them as they are, and both call validateTestOptions.
import { choiceMessage, numberMessage } from '../flag-messages.ts';
import { withinRule } from '../flag-table.ts';
import { TEST_FLAGS, type TestFlag, type TestOptions } from './test-flag-table.ts';
import type { ConnectionOptions } from '../client/connection-options.ts';
import { noConnectionOptions } from '../client/connection-options.ts';
import { normalizeBaseUrl, type NormalizedBaseUrl } from '../client/base-url.ts';
import { checkToken, NO_TOKEN } from '../client/token.ts';
import type { Selection } from '../checks/runner/conformance-results.ts';
import { requirementInfos } from '../checks/registry/registry-view.ts';
import type { Profile } from '../checks/kernel/verdicts.ts';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { capabilityNamesOf, isCapability, type Capability } from '../checks/registry/capabilities.ts';
import { defaultProtocols, type ProtocolList } from '../protocols/registry.ts';

/** runConformance's options: their type sits beside the flags that write them (test-flag-table.ts). */
export type { TestOptions } from './test-flag-table.ts';

/** Every key of TestOptions, at run time (from the flag table): runConformance refuses any other (a misspelt option would be ignored). */
export { TEST_OPTION_KEYS } from './test-flag-table.ts';

export type TestTarget =
  | { kind: 'bundled-mock' }
  | { kind: 'external'; base: NormalizedBaseUrl; token: string; connection: ConnectionOptions };

/** TestOptions after validation: every default applied except the deadlines, which depend on the target and the start time. */
export interface ValidTestOptions {
  target: TestTarget;
  selection: Selection;
  profile: Profile;
  includeLimits: boolean;
  seed: number;
  model?: string;
  timeouts: { request: number | undefined; check: number | undefined; run: number | undefined };
  maxRateLimitWaitMs: number | undefined;
  pacePerSecond: number | undefined;
  expect: Capability[];
  python?: string;
  protocols: ProtocolList;
}

function usage(command: string, message: string): HarnessError {
  return new HarnessError(HarnessErrorCode.USAGE, `${command}: ${message}`);
}

/**
 * Requirement IDs, areas (`ME`, `RCPT-CHAIN`) and area families (`RCPT`: every `RCPT-*` area), as
 * IDs. Issue 43: "--skip takes exact IDs only (--skip ME exits 2)".
 */
function idList(command: string, option: string, list: readonly string[] | undefined, protocols: ProtocolList): string[] {
  if (list === undefined) return [];
  const known = requirementInfos('default', protocols);
  const areaOf = (id: string): string => id.replace(/-\d+$/, '');
  const entries = list.map((s) => s.trim()).filter((s) => s.length > 0);
  const ids: string[] = [];
  const unknown: string[] = [];
  for (const e of entries) {
    if (known.has(e)) ids.push(e);
    else {
      const area = [...known.keys()].filter((id) => areaOf(id) === e || areaOf(id).startsWith(`${e}-`));
      if (area.length > 0) ids.push(...area);
      else unknown.push(e);
    }
  }
  if (unknown.length > 0) {
    const areas = [...new Set([...known.keys()].map(areaOf))].sort();
    throw new HarnessError(HarnessErrorCode.UNKNOWN_REQUIREMENT, `${command}: ${option} names unknown requirement(s) or area(s): ${unknown.join(', ')} (areas: ${areas.join(', ')})`, { hint: 'iari requirements lists every ID' });
  }
  return [...new Set(ids)].sort();
}

/**
 * Every option whose row in the flag table has a closed set or a range: one of the set, or within
 * the range (a duration's in seconds, its value in milliseconds), else a usage error naming it as
 * the caller does.
 */
function checkRows(o: TestOptions, command: string, option: (name: keyof TestOptions) => string, table: readonly TestFlag[]): void {
  for (const row of table) {
    if (row.option === undefined || row.cliOnly !== undefined || row.parse === 'member') continue;
    const name = row.option as keyof TestOptions;
    const value = o[name];
    if (value === undefined) continue;
    if (row.choices !== undefined && !row.choices.includes(value as string)) throw usage(command, choiceMessage(option(name), row.choices, String(value)));
    const rule = row.rule;
    if (rule === undefined) continue;
    if (row.parse === 'duration') {
      const ms = value as number;
      if (!(Number.isFinite(ms) && ms >= rule.min * 1000 && ms <= rule.max * 1000)) throw usage(command, `${option(name)} must be between ${rule.min}s and ${rule.max}s, got ${ms / 1000}s`);
    } else if (typeof value !== 'number' || !withinRule(rule, value)) throw usage(command, numberMessage(option(name), rule, String(value)));
  }
}

/**
 * Checks every option before any traffic; a bad one is a usage or configuration error (exit 2),
 * named as the caller names it (`option` maps an option to its flag: `--only` for the CLI).
 */
export function validateTestOptions(o: TestOptions, command = 'runConformance', option: (name: keyof TestOptions) => string = (name) => name, table: readonly TestFlag[] = TEST_FLAGS): ValidTestOptions {
  checkRows(o, command, option, table);
  const grade = o.grade ?? 'all';
  // spec/DECISIONS.md D-GRADE-04: profile choices are INFO by default; strict raises them to SHOULD.
  const profile = o.profile ?? 'default';
  const seed = o.seed ?? 1;
  const protocols = o.protocols ?? defaultProtocols;
  if (!Array.isArray(protocols) || protocols.length === 0) throw usage(command, `${option('protocols')} must be a non-empty list of protocols (src/protocols/protocol.ts)`);
  const scope = o.scope ?? 'interface';
  // Issue 43: a token missing without being refused (an unset CI secret) leaves the run undecided; noToken accepts it.
  if (o.noToken !== undefined && typeof o.noToken !== 'boolean') throw usage(command, `${option('noToken')} must be true or false`);
  if (o.noToken === true && o.baseUrl === undefined) throw usage(command, `${option('noToken')} applies to a server given with a base URL (the bundled mock has a token)`);
  if (o.noToken === true && o.token !== undefined && o.token.trim() !== NO_TOKEN) throw usage(command, `${option('noToken')} says the server has no auth: give no token with it`);
  const noToken = o.baseUrl === undefined ? undefined : o.noToken === true ? 'accepted' : o.token === NO_TOKEN ? 'implicit' : undefined;
  const selection: Selection = { grade, only: idList(command, option('only'), o.only, protocols), skip: idList(command, option('skip'), o.skip, protocols), ...(scope === 'interface' ? {} : { scope }), ...(noToken === undefined ? {} : { noToken }) };
  const ms = (value: number | undefined): number | undefined => (value === undefined ? undefined : Math.round(value));
  const timeouts = { request: ms(o.requestTimeoutMs), check: ms(o.checkTimeoutMs), run: ms(o.runTimeoutMs) };
  const maxRateLimitWaitMs = ms(o.maxRateLimitWaitMs);
  const pacePerSecond = o.pacePerSecond;
  const connection = o.connection ?? noConnectionOptions;
  let target: TestTarget;
  if (o.baseUrl === undefined) {
    if (connection.caFile !== null || connection.insecure || connection.headers.length > 0) {
      throw usage(command, 'a CA file, --insecure and extra headers apply to a server given with a base URL (the bundled mock is plain http)');
    }
    target = { kind: 'bundled-mock' };
  } else {
    const base = normalizeBaseUrl(o.baseUrl, command);
    target = { kind: 'external', base, token: noToken === undefined ? checkToken(command, o.token) : NO_TOKEN, connection };
  }
  const expect = (o.expect ?? []).map((s) => s.trim());
  // `--expect ''` (or `a,,b`) names nothing: a mistake, not a run that expects nothing.
  if (expect.includes('')) throw new HarnessError(HarnessErrorCode.USAGE, `${command}: ${option('expect')} needs capability names, comma-separated; got an empty one`, { hint: `capabilities: ${capabilityNamesOf(protocols).join(', ')}` });
  const unknownCaps = expect.filter((c) => !isCapability(c, protocols));
  if (unknownCaps.length > 0) {
    throw new HarnessError(HarnessErrorCode.USAGE, `${command}: ${option('expect')} names unknown capabilit${unknownCaps.length === 1 ? 'y' : 'ies'}: ${unknownCaps.join(', ')}`, { hint: `capabilities: ${capabilityNamesOf(protocols).join(', ')}` });
  }
  const model = o.model?.trim();
  if (model === '') throw usage(command, `${option('model')} needs a model id`);
  const python = o.python?.trim();
  if (python === '') throw usage(command, `${option('python')} needs a Python interpreter (a path, or a name on PATH)`);
  // A path is checked now; a bare name is looked up on PATH when the first Python operation starts.
  if (python !== undefined && /[\\/]/.test(python) && !existsSync(python)) throw usage(command, `${option('python')} names no file: ${python}`);
  return { target, selection, profile, includeLimits: o.includeLimits === true, seed, ...(model === undefined ? {} : { model }), ...(python === undefined ? {} : { python }), timeouts, maxRateLimitWaitMs, pacePerSecond, expect: [...new Set(expect)], protocols };
}
