import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChromiumMissingError, chromiumAvailable, chromiumPath, checkReport, launchChromium } from './browser-check.ts';

describe('browser-check', () => {
  it('reports Chromium missing when $IARI_CHROMIUM points nowhere', () => {
    expect(chromiumPath({ IARI_CHROMIUM: '/nonexistent/chromium' })).toBeUndefined();
    expect(chromiumAvailable({ IARI_CHROMIUM: '/nonexistent/chromium' })).toBe(false);
  });

  it('throws a clear error naming the install command when Chromium is missing', async () => {
    const saved = process.env['IARI_CHROMIUM'];
    process.env['IARI_CHROMIUM'] = '/nonexistent/chromium';
    try {
      await expect(launchChromium()).rejects.toBeInstanceOf(ChromiumMissingError);
      await expect(launchChromium()).rejects.toThrow(/apt-get install -y chromium/);
    } finally {
      if (saved === undefined) delete process.env['IARI_CHROMIUM'];
      else process.env['IARI_CHROMIUM'] = saved;
    }
  });

  it.skipIf(!chromiumAvailable())('collects console errors, page errors and network requests of a page', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'iari-browser-'));
    const file = join(dir, 'bad.html');
    writeFileSync(
      file,
      '<!doctype html><title>x</title><img src="http://127.0.0.1:9/x.png"><script>console.error("boom");throw new Error("kaput")</script>',
    );
    const problems = await checkReport(file, join(dir, 'shot.png'));
    expect(problems.consoleErrors.some((e) => e.includes('boom'))).toBe(true);
    expect(problems.pageErrors.some((e) => e.includes('kaput'))).toBe(true);
    expect(problems.networkRequests).toEqual(['http://127.0.0.1:9/x.png']);
  });
});
