import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, productFiles as boundaryProductFiles } from './protocol-boundary.ts';

// test-support/ holds what only tests, suites and benchmarks use (samples, fixtures, reference
// implementations, in-process runners, crash-test children). The package is built from the entry
// points in tsconfig.build.json and everything they import, so a product module that imported one
// of these would ship it: none may.

function productFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|mjs)$/.test(f) && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'))
    .map((f) => join(dir, f));
}

describe('test-support stays on the test side', () => {
  it('no module under src/ or mock-server/ imports from test-support/', () => {
    const files = [...productFiles('src'), ...productFiles('mock-server')];
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.filter((f) => /from '[^']*test-support\/|import\('[^']*test-support\//.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('every module here is used by a test, a suite or a script (nothing dead moved in)', () => {
    const here = readdirSync('test-support').filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    const users = ['src', 'mock-server', 'suites', 'scripts', 'test-support'].flatMap((d) =>
      readdirSync(d, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => readFileSync(join(d, f), 'utf8')),
    );
    const unused = here.filter((name) => !users.some((text) => text.includes(`/${name}'`) || text.includes(`test-support/${name}`)));
    expect(unused).toEqual([]);
  });

  it('every product module is reached from a shipped entry point (a module only tests, suites or scripts use belongs here)', () => {
    const entries = (JSON.parse(readFileSync('tsconfig.build.json', 'utf8')) as { files: string[] }).files;
    const product = new Set(boundaryProductFiles('.'));
    const reached = new Set<string>();
    const stack = [...entries];
    while (stack.length > 0) {
      const f = stack.pop() as string;
      if (reached.has(f)) continue;
      reached.add(f);
      for (const i of importsOf('.', f)) if (product.has(i)) stack.push(i);
    }
    expect([...product].filter((f) => !reached.has(f))).toEqual([]);
  });
});
