// The scenario a run records in load.json: the options as given (a file's values under the flags),
// with the connection as validated, so `iari load --scenario load.json` runs the same again.
import type { LoadPlan } from './load-options.ts';
import { optionsToScenario, type LoadScenario, type ScenarioOptions, type ScenarioShell } from './scenario.ts';

export function effectiveScenario(options: ScenarioOptions, shell: ScenarioShell, plan: Pick<LoadPlan, 'connection'>): LoadScenario {
  const s = optionsToScenario(options, shell);
  const c = plan.connection;
  // The CLI's connection comes from its flags (`--header 'Name: env:VAR'` read here): recorded as
  // validated; a secret header's value is redacted when load.json is written, like the token.
  const target = {
    ...s.target,
    ...(c.caFile === null ? {} : { caFile: c.caFile.path }),
    ...(c.insecure ? { insecure: true } : {}),
    ...(c.headers.length === 0 ? {} : { headers: Object.fromEntries(c.headers.map((h) => [h.name, h.value])) }),
  };
  return { ...(Object.keys(target).length === 0 ? {} : { target }), ...Object.fromEntries(Object.entries(s).filter(([k]) => k !== 'target')) };
}
