import { closeSync, mkdtempSync, openSync, rmSync, ftruncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../test-support/cli-in-process.ts';
import { MAX_PAYLOADS_BYTES } from '../receipts/payloads-file.ts';

const tmp = mkdtempSync(join(tmpdir(), 'iari-payloads-limit-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('iari receipts verify --payloads: the size limit (D-RCPT-13)', () => {
  it('refuses a payloads file over 1 GiB by its size, exit 2, before reading it or any Receipt', async () => {
    const chain = join(tmp, 'chain.jsonl');
    writeFileSync(chain, '');
    const big = join(tmp, 'payloads.json');
    // Sparse: 1 GiB + 1 byte of size, no disk written; reading it would take a second and a gigabyte.
    const fd = openSync(big, 'w');
    ftruncateSync(fd, MAX_PAYLOADS_BYTES + 1);
    closeSync(fd);
    const started = Date.now();
    const r = await runCli(['receipts', 'verify', chain, '--payloads', big]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--payloads ${big}: the file is larger than ${MAX_PAYLOADS_BYTES} bytes (1 GiB)`);
    expect(Date.now() - started).toBeLessThan(5_000);
    const fits = join(tmp, 'fits.json');
    writeFileSync(fits, '{}');
    expect((await runCli(['receipts', 'verify', chain, '--payloads', fits])).code).toBe(0);
  });
});
