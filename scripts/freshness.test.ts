import { describe, expect, it } from 'vitest';
import { highestOf, judge, majorKey, majorsBehind, pinnedOf } from './freshness.ts';

describe('npm run freshness (scripts/freshness.ts)', () => {
  it('reads every kind of direct dependency, an npm alias as the package it installs', () => {
    const rows = pinnedOf({
      dependencies: { openai: '7.59.0' },
      optionalDependencies: { 'openai-v6': 'npm:openai@6.49.0', '@ai-sdk/openai-compatible-v2': 'npm:@ai-sdk/openai-compatible@2.0.92' },
      devDependencies: { vitest: '5.1.2' },
      peerDependencies: { msw: '^2.0.0 || ^3.0.0' },
    });
    expect(rows).toEqual([
      { name: 'openai', registryName: 'openai', kind: 'dependency', spec: '7.59.0' },
      { name: 'openai-v6', registryName: 'openai', kind: 'optional', spec: '6.49.0' },
      { name: '@ai-sdk/openai-compatible-v2', registryName: '@ai-sdk/openai-compatible', kind: 'optional', spec: '2.0.92' },
      { name: 'vitest', registryName: 'vitest', kind: 'dev', spec: '5.1.2' },
      { name: 'msw', registryName: 'msw', kind: 'peer', spec: '^2.0.0 || ^3.0.0' },
    ]);
  });

  it('counts majors as ^ does (0.x minors are majors) and takes the highest version a range allows', () => {
    expect(majorKey('7.59.0')).toEqual([7]);
    expect(majorKey('0.5.0')).toEqual([0, 5]);
    expect(highestOf('^2.0.0 || ^3.0.0')).toBe('3.0.0');
    expect(highestOf('7.0.2')).toBe('7.0.2');
    expect(majorsBehind('6.49.0', '7.59.0')).toBe(1);
    expect(majorsBehind('5.9.3', '7.0.2')).toBe(2);
    expect(majorsBehind('0.5.0', '0.7.1')).toBe(2);
    expect(majorsBehind('0.5.0', '1.0.0')).toBe(1);
    expect(majorsBehind('7.59.0', '7.60.1')).toBe(0);
    expect(majorsBehind('8.0.0', '7.60.1')).toBe(0);
  });

  it('marks a dependency two majors behind, one major behind not, and a registry it could not ask as unknown', () => {
    const pin = { name: 'typescript-5', registryName: 'typescript', kind: 'dev' as const, spec: '5.9.3' };
    expect(judge(pin, '7.0.2').behind).toBe(2);
    expect(judge({ ...pin, spec: '6.0.3' }, '7.0.2').behind).toBe(1);
    expect(judge({ name: 'msw', registryName: 'msw', kind: 'peer', spec: '^2.0.0 || ^3.0.0' }, '3.0.5').behind).toBe(0);
    expect(judge(pin, null, 'E404')).toMatchObject({ latest: null, behind: null, error: 'E404' });
  });
});
