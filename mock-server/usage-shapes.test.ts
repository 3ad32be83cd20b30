import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from './index.ts';
import { openShapeModes } from './core/open-shapes.ts';
import { counterKinds, discoverShape, readRows } from '../src/checks/wire/usage-shape.ts';

// The legal usage shapes carry the faithful numbers, only written otherwise: read with the shape
// iari discovers, every counter a shape carries equals the profile row's.

let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer({ seed: 3, ttftMs: 0, itlMs: 0 });
  await fetch(`${mock.url}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${mock.tokens.default}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'iari-mini', messages: [{ role: 'user', content: 'hello' }] }),
  });
});
afterAll(() => mock.close());

async function usage(mode?: string): Promise<unknown> {
  const res = await fetch(`${mock.url}/me/usage?days=30`, { headers: { authorization: `Bearer ${mock.tokens.default}`, ...(mode === undefined ? {} : { 'x-iari-fault': mode }) } });
  expect(res.status).toBe(200);
  return res.json();
}

describe('legal usage shapes', () => {
  const legal = openShapeModes.filter((m) => m.kind === 'legal' && m.name.startsWith('legal-usage-'));

  it('there are legal modes for other names, a bare array, a wrapper, Unix timestamps, a map keyed by day and idle days left out', () => {
    expect(legal.map((m) => m.name)).toEqual(['legal-usage-renamed', 'legal-usage-bare-array', 'legal-usage-timestamps', 'legal-usage-date-map', 'legal-usage-sparse']);
  });

  for (const mode of legal) {
    it(`USAGE-010: ${mode.name} carries the faithful numbers, read with the discovered shape`, async () => {
      const faithful = await usage();
      const odd = await usage(mode.name);
      expect(JSON.stringify(odd)).not.toBe(JSON.stringify(faithful));
      const expected = readRows(faithful, discoverShape(faithful)!)!;
      const shape = discoverShape(odd);
      expect(shape).toBeDefined();
      const rows = readRows(odd, shape!)!;
      expect(rows.length).toBeGreaterThan(0);
      const kinds = counterKinds.filter((k) => shape!.counters[k] !== undefined);
      expect(kinds).toContain('requests');
      for (const r of rows) {
        const want = expected.find((e) => e.date === r.date);
        expect(want, r.date).toBeDefined();
        for (const k of kinds) expect(r[k], `${mode.name} ${r.date} ${k}`).toBe(want![k]);
      }
      // Only idle days may be missing.
      const missing = expected.filter((e) => !rows.some((r) => r.date === e.date));
      expect(missing.every((e) => e.requests === 0)).toBe(true);
    });
  }
});
