/**
 * Opens a report in a real headless Chromium (Debian's `chromium` package, driven by
 * playwright-core), collects console errors, page errors and any network request (a report must
 * be self-contained), and takes screenshots.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';

const candidates = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

export const chromiumArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'];

/** The Chromium executable: $IARI_CHROMIUM, else Debian's package paths; undefined when absent. */
export function chromiumPath(env: Record<string, string | undefined> = process.env): string | undefined {
  const configured = env['IARI_CHROMIUM'];
  if (configured !== undefined && configured !== '') return existsSync(configured) ? configured : undefined;
  return candidates.find((p) => existsSync(p));
}

export function chromiumAvailable(env: Record<string, string | undefined> = process.env): boolean {
  return chromiumPath(env) !== undefined;
}

export class ChromiumMissingError extends Error {
  override readonly name = 'ChromiumMissingError';
  constructor() {
    super(
      `Chromium not found (looked for $IARI_CHROMIUM, ${candidates.join(', ')}). Install Debian's package: apt-get install -y chromium. Do not use "npx playwright install".`,
    );
  }
}

export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (executablePath === undefined) throw new ChromiumMissingError();
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath, args: chromiumArgs, timeout: 30_000 });
}

export interface PageProblems {
  consoleErrors: string[];
  pageErrors: string[];
  /** Requests to anything other than the report file itself (a self-contained page makes none). */
  networkRequests: string[];
}

export interface ReportSession {
  page: Page;
  problems: PageProblems;
  screenshot(path: string, fullPage?: boolean): Promise<string>;
}

/**
 * Opens `file` (an HTML report on disk) in a fresh page, runs `fn`, and closes the browser.
 * Pass an existing browser to reuse it across reports.
 */
export async function withReportPage<T>(
  file: string,
  fn: (session: ReportSession) => Promise<T>,
  options: { browser?: Browser; viewport?: { width: number; height: number }; colorScheme?: 'light' | 'dark' } = {},
): Promise<T> {
  const own = options.browser === undefined;
  const browser = options.browser ?? (await launchChromium());
  try {
    const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 900 }, colorScheme: options.colorScheme ?? 'light' });
    const page = await context.newPage();
    const url = pathToFileURL(resolve(file)).href;
    const problems: PageProblems = { consoleErrors: [], pageErrors: [], networkRequests: [] };
    page.on('console', (m) => {
      if (m.type() === 'error') problems.consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => problems.pageErrors.push(e.message));
    await page.route('**/*', (route) => {
      const requested = route.request().url();
      if (requested === url) return route.continue();
      problems.networkRequests.push(requested);
      return route.abort();
    });
    await page.goto(url, { waitUntil: 'load', timeout: 20_000 });
    try {
      return await fn({
        page,
        problems,
        async screenshot(path, fullPage = true) {
          mkdirSync(dirname(resolve(path)), { recursive: true });
          await page.screenshot({ path, fullPage, timeout: 20_000 });
          return path;
        },
      });
    } finally {
      await context.close();
    }
  } finally {
    if (own) await browser.close();
  }
}

/** Opens a report, screenshots it, and returns what went wrong on the page (empty lists when nothing did). */
export async function checkReport(file: string, screenshotPath?: string): Promise<PageProblems> {
  return withReportPage(file, async (s) => {
    if (screenshotPath !== undefined) await s.screenshot(screenshotPath);
    return s.problems;
  });
}
