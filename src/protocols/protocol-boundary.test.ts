import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(path);
    return /\.(ts|mts|mjs)$/.test(e.name) && !/\.test\.(ts|mts)$/.test(e.name) ? [path] : [];
  });
}

describe('one module per API', () => {
  it('names the chat completions route only in src/protocols/ and the mock route table, benchmarks and engine scripts included', () => {
    // src/generated/ is generated from spec/openapi.yaml, the source of truth the route comes from.
    const allowed = (p: string): boolean => p.startsWith('src/protocols/') || p.startsWith('src/generated/') || p === 'mock-server/core/handler.ts';
    const found = [...sources('src'), ...sources('mock-server'), ...sources('scripts'), ...sources('test-support')]
      .map((p) => relative(root, join(root, p)))
      .filter((p) => !allowed(p) && readFileSync(join(root, p), 'utf8').includes('chat/completions'));
    expect(found).toEqual([]);
  });
});
