// The scenario a run records in load.json: the options as given (a file's values under the flags),
// with the connection as validated, so `iari load --scenario load.json` runs the same again.
import type { LoadPlan } from './load-options.ts';
import { optionsToScenario, type LoadScenario, type ScenarioOptions, type ScenarioShell } from './scenario.ts';

export function effectiveScenario(options: ScenarioOptions, shell: ScenarioShell, plan: Pick<LoadPlan, 'connection'>): LoadScenario {
  const s = optionsToScenario(options, shell);
  const c = plan.connection;
  // The CLI's connection comes from its flags: the CA file and insecure are recorded. Header values
  // never are (load.json names the headers in meta.connection, never their values): a run from this
  // scenario is given them again (--header, target.headers).
  const { headers: _headers, ...given } = s.target ?? {};
  const target = {
    ...given,
    ...(c.caFile === null ? {} : { caFile: c.caFile.path }),
    ...(c.insecure ? { insecure: true } : {}),
  };
  return { ...(Object.keys(target).length === 0 ? {} : { target }), ...Object.fromEntries(Object.entries(s).filter(([k]) => k !== 'target')) };
}
