import { describe, expect, it } from 'vitest';
import { collectGarbage } from './collect-garbage.ts';

describe('collectGarbage', () => {
  it('CHAT-STREAM-046: frees an unreferenced 64 MiB buffer at once (V8 alone would keep it until its next full collection)', () => {
    expect(collectGarbage()).toBe(true);
    const before = process.memoryUsage().arrayBuffers;
    let big: Buffer | null = Buffer.alloc(64 * 1024 * 1024, 1);
    expect(process.memoryUsage().arrayBuffers - before).toBeGreaterThan(60 * 1024 * 1024);
    big = null;
    expect(big).toBeNull();
    expect(collectGarbage()).toBe(true);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(8 * 1024 * 1024);
  });
});
