import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, launchChromium, screenshot, server } from './harness';

// /docs as someone without internet sees it: Chromium with every request to another host aborted.
// The page must still render Swagger UI (its bundle is served by the Worker) and list every
// operation of /openapi.json.

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

describe('API reference at /docs', () => {
  it('renders offline and lists every operation of the OpenAPI document', async () => {
    const doc = (await api('GET', '/openapi.json', null)).body;
    const expected = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, item]) => Object.keys(item).filter((m) => METHODS.includes(m)).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(expected.length).toBeGreaterThan(100);

    const local = new URL(server().url).host;
    const context = await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 900 } });
    const outside: string[] = [];
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.host === local) return route.continue();
      outside.push(url.href);
      return route.abort('internetdisconnected');
    });
    const page = await context.newPage();
    const failures: string[] = [];
    page.on('pageerror', (e) => failures.push(e.message));
    try {
      await page.goto(`${server().url}/docs`);
      await expect.poll(() => page.locator('.opblock').count(), { timeout: 60_000 }).toBeGreaterThan(0);
      // Swagger UI renders a long list only where the window is (from 150 rows on): scroll through
      // it and collect what each view shows.
      const listed = new Set<string>();
      for (let previous = -1; ; ) {
        const seen = await page.$$eval('.opblock', (blocks) =>
          blocks.map((b) => `${b.querySelector('.opblock-summary-method')?.textContent?.trim()} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`),
        );
        for (const op of seen) listed.add(op);
        const y = await page.evaluate<number>('window.scrollBy(0, Math.floor(window.innerHeight * 0.7)), window.scrollY');
        if (y === previous) break;
        previous = y;
        await page.waitForTimeout(50);
      }
      expect([...listed].sort()).toEqual(expected);
      await page.evaluate('window.scrollTo(0, 0)');
      // The document's own text (title, rules) and the tag descriptions are shown.
      await expect.poll(() => page.locator('.info .title').innerText()).toContain('Edge billing API');
      expect(await page.locator('.info').innerText()).toContain('Idempotency');
      expect(await page.locator('.opblock-tag[data-tag="API keys"]').innerText()).toContain('A key is shown once');
      await screenshot(page, 'docs-offline');
      expect(failures).toEqual([]);
      expect(outside, 'requests to other hosts').toEqual([]);
    } finally {
      await context.close();
    }
  });
});
