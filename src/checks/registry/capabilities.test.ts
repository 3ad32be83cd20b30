import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../../package-root.ts';
import { capabilityDef, capabilityDefsOf, capabilityNamesOf, capabilityOfId, capabilityTable } from './capabilities.ts';

const capabilityNames = capabilityNamesOf();
import { loadRequirements } from './requirements-registry.ts';
import { defaultProtocols } from '../../protocols/registry.ts';

// The capability model (capabilities.ts) is the one source of which requirements a capability gates:
// the table rows, the gates in the checks and the registry's "capability X" refs all follow it.

const registry = loadRequirements();

describe('capability rows', () => {
  it('TOOLS-020, TOOLS-024, TOOLS-025: no requirement is gated by two capabilities, so no row names one another capability gates', () => {
    const owners = new Map<string, string[]>();
    for (const cap of capabilityNames) for (const id of capabilityDef(defaultProtocols, cap).ids) owners.set(id, [...(owners.get(id) ?? []), cap]);
    expect([...owners].filter(([, caps]) => caps.length > 1)).toEqual([]);
    for (const [id, caps] of owners) expect(capabilityOfId(id)).toBe(caps[0]);
  });

  it('TOOLS-020: parallel_tool_calls false and parallel calls themselves are two capabilities, each row with its own requirements', () => {
    expect(capabilityDef(defaultProtocols, 'parallel-tool-calls').ids).toEqual(['TOOLS-024', 'TOOLS-025']);
    expect(capabilityDef(defaultProtocols, 'parallel-tool-calls-false').ids).toEqual(['TOOLS-020']);
  });

  it('CHAT-034: every gated requirement is in the registry and its ref names the capability that gates it, and no ref names another', () => {
    const byId = new Map(registry.map((r) => [r.id, r]));
    const wrong: string[] = [];
    for (const cap of capabilityNames) {
      for (const id of capabilityDef(defaultProtocols, cap).ids) {
        const r = byId.get(id);
        if (r === undefined) wrong.push(`${id} (${cap}) is not in spec/requirements.yaml`);
        else if (!new RegExp(`capability ${cap}(?![a-z-])`).test(r.ref)) wrong.push(`${id}: ref does not say "capability ${cap}"`);
      }
    }
    for (const r of registry) {
      for (const m of r.ref.matchAll(/capability ([a-z][a-z-]*[a-z])/g)) {
        if (capabilityOfId(r.id) !== m[1]) wrong.push(`${r.id}: ref says "capability ${m[1]}" but ${capabilityOfId(r.id) ?? 'no capability'} gates it`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('TOOLS-024: a row lists exactly the requirements of its capability, and the outcome follows its own probe', () => {
    const rows = capabilityTable({ 'parallel-tool-calls': { status: 'honoured', detail: 'two calls' }, 'parallel-tool-calls-false': { status: 'ignored', detail: 'still two' } }, []);
    const row = (name: string) => rows.find((r) => r.name === name);
    expect(row('parallel-tool-calls')).toMatchObject({ outcome: 'judged', requirementIds: ['TOOLS-024', 'TOOLS-025'] });
    expect(row('parallel-tool-calls-false')).toMatchObject({ outcome: 'skipped', requirementIds: ['TOOLS-020'] });
  });
});

describe('the capability table in docs/conformance.md', () => {
  it('TOOLS-020, TOOLS-024, TOOLS-025: has one row per capability listing exactly the requirements capabilities.ts gates', () => {
    const text = readFileSync(packagePath('docs/conformance.md'), 'utf8');
    const rows = new Map<string, string[]>();
    for (const m of text.matchAll(/^\| `([a-z-]+)` \| [^|\n]+ \| ([^|\n]+) \|$/gm)) {
      if (m[1] !== undefined && m[2] !== undefined && (capabilityNames as readonly string[]).includes(m[1])) rows.set(m[1], [...m[2].matchAll(/[A-Z][A-Z-]*-\d{3}/g)].map((x) => x[0]));
    }
    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(capabilityNames.map((c) => [c, [...capabilityDef(defaultProtocols, c).ids]])));
  });
});
