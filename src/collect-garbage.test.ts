import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { collectGarbage, collectYoungGarbage } from './collect-garbage.ts';

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

  it('CHAT-STREAM-046: a young collection frees 32 MiB of spent 64 KiB read buffers (what the load main thread holds after copying a large event to its worker, issue 42)', () => {
    // The freeing is measured when the collection returns: V8 otherwise sweeps dead buffers on a background thread, a little later on a busy machine.
    setFlagsFromString('--no-concurrent-array-buffer-sweeping');
    expect(collectGarbage()).toBe(true);
    const before = process.memoryUsage().arrayBuffers;
    let sum = 0;
    // As socket reads: each its own ArrayBuffer, dropped once its bytes were copied on.
    for (let i = 0; i < 512; i++) sum += new Uint8Array(new ArrayBuffer(64 * 1024)).length;
    expect(sum).toBe(32 * 1024 * 1024);
    const held = process.memoryUsage().arrayBuffers;
    expect(held - before, 'V8 alone keeps them until the young generation fills').toBeGreaterThan(16 * 1024 * 1024);
    expect(collectYoungGarbage()).toBe(true);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(4 * 1024 * 1024);
  });
});
