import { describe, expect, it } from 'vitest';
import { faults } from '../faults.ts';
import { coreFaults } from './fault-catalogue.ts';
import { clientExercisedModes, clientImpactFaults, withClientBreaks } from './client-impact.ts';
import { loadRequirements } from '../../src/checks/registry/requirements-registry.ts';

describe('client impact table', () => {
  it('names only faults that exist, never a legal mode', () => {
    const byName = new Map(faults.map((f) => [f.name, f]));
    for (const name of clientImpactFaults) expect(byName.get(name)?.kind, name).toBe('fault');
    for (const name of clientExercisedModes) expect(byName.get(name)?.kind, name).toBe('legal');
    expect(faults.find((f) => f.name === 'legal-crlf')?.exercises).toContain('CLIENT-003');
  });

  it('gives every CLIENT and CLIENT-RESP requirement at least one fault that breaks it', () => {
    const client = loadRequirements().filter((r) => r.area === 'CLIENT' || r.area === 'CLIENT-RESP').map((r) => r.id);
    expect(client.length).toBeGreaterThanOrEqual(25);
    const broken = new Set(faults.flatMap((f) => f.breaks));
    expect(client.filter((id) => !broken.has(id))).toEqual([]);
  });

  it('adds CLIENT IDs to breaks without dropping or repeating the fault\'s own', () => {
    const extended = withClientBreaks(coreFaults);
    const before = coreFaults.find((f) => f.name === 'error-body-detail');
    const after = extended.find((f) => f.name === 'error-body-detail');
    expect(after?.breaks.slice(0, before?.breaks.length)).toEqual(before?.breaks);
    expect(after?.breaks).toContain('CLIENT-006');
    expect(new Set(after?.breaks).size).toBe(after?.breaks.length);
    expect(extended.find((f) => f.name === 'stream-no-done')).toBe(coreFaults.find((f) => f.name === 'stream-no-done'));
  });
});
