/**
 * Accessibility and layout in Debian's Chromium: axe-core (injected with Playwright's
 * bypassCSP, since the built app sends a CSP) finds no serious or critical violation on
 * any route in either theme; disabled controls look disabled; at 800 px wide nothing is
 * off-screen; a favicon is served.
 */
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA, importTraces, openApp, type Session } from './harness.ts';

let s: Session;
let routes: string[];

/** Waits until a route has rendered (no "Loading…" / "Opening…" left, the lane view drawn if any). */
async function settle(page: Page) {
  await page.waitForFunction(
    () =>
      !/Loading…|Opening the trace|Laying out/.test(document.querySelector('main')?.textContent ?? '') &&
      !document.querySelector('[data-testid=lane-view][aria-busy=true]'),
    null,
    { timeout: 60_000 },
  );
}

beforeAll(async () => {
  s = await openApp({ bypassCSP: true });
  await importTraces(s.page, [join(DATA, 'conv-26-fault-1.json'), join(DATA, 'conv-26-rag-0.json')]);
  const ids = await s.page.$$eval('[data-testid=trace-row] td:first-child .mono', (els) =>
    els.map((e) => e.textContent ?? ''),
  );
  const trace = ids[0];
  const { queryId, opId, varId } = await s.page.evaluate(async (id) => {
    const req = indexedDB.open('memtrace-workbench');
    const db: IDBDatabase = await new Promise((ok, no) => {
      req.onsuccess = () => ok(req.result);
      req.onerror = () => no(req.error);
    });
    const rows: { queryId: string; labelOpId: string | null; evidenceIds: string[] }[] = await new Promise(
      (ok) => {
        const r = db.transaction('cases').objectStore('cases').getAll();
        r.onsuccess = () => ok(r.result.filter((c: { traceId: string }) => c.traceId === id));
      },
    );
    const c = rows.find((x) => x.labelOpId) ?? rows[0];
    return { queryId: c.queryId, opId: c.labelOpId ?? '', varId: c.evidenceIds[0] ?? '' };
  }, trace);
  const enc = encodeURIComponent;
  routes = [
    '#/',
    '#/cases',
    `#/t/${enc(trace)}`,
    `#/t/${enc(trace)}/case/${enc(queryId)}`,
    `#/t/${enc(trace)}/op/${enc(opId)}`,
    `#/t/${enc(trace)}/var/${enc(varId)}`,
    '#/search?q=sunrise',
    '#/search?mode=ranked',
    '#/eval',
    '#/run',
    '#/settings',
  ];
}, 180_000);
afterAll(async () => {
  await s?.close();
});

describe('accessibility in Chromium', () => {
  for (const theme of ['light', 'dark'] as const)
    it(`axe finds no serious or critical violation on any route (${theme} theme)`, async () => {
      const { page, url } = s;
      await page.evaluate((t) => localStorage.setItem('memtrace-theme', t), theme);
      await page.reload();
      const found: string[] = [];
      for (const route of routes) {
        await page.goto(url + route);
        await settle(page);
        expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
        if (route === '#/settings') {
          // A provider whose connection test fails (nothing listens there): its message is checked too.
          const panel = page.getByTestId('settings');
          if ((await panel.getByRole('button', { name: 'Test connection' }).count()) === 0)
            await panel.getByRole('button', { name: 'Add provider' }).click();
          await panel.getByRole('button', { name: 'Test connection' }).first().click();
          await page.getByTestId('llm-test-result').first().waitFor();
        }
        const r = await new AxeBuilder({ page })
          .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
          .analyze();
        for (const v of r.violations)
          if (v.impact === 'serious' || v.impact === 'critical')
            found.push(
              `${route} ${v.id}: ${v.nodes
                .map((n) => n.target.join(' '))
                .slice(0, 3)
                .join(' | ')}`,
            );
      }
      expect(found).toEqual([]);
    }, 240_000);

  it('disabled controls look disabled (faded, not-allowed cursor)', async () => {
    const { page, url } = s;
    await page.goto(`${url}#/eval`);
    await settle(page);
    // The run button is enabled once the stored traces are listed as chosen (read from IndexedDB).
    await page.waitForSelector('[data-testid=eval-run]:not([disabled])');
    const look = await page.evaluate(() => {
      const b = document.querySelector<HTMLButtonElement>('[data-testid=eval-export-csv]')!;
      const enabled = document.querySelector<HTMLButtonElement>('[data-testid=eval-run]')!;
      return {
        disabled: b.disabled,
        opacity: Number(getComputedStyle(b).opacity),
        cursor: getComputedStyle(b).cursor,
        enabledOpacity: Number(getComputedStyle(enabled).opacity),
      };
    });
    expect(look.disabled).toBe(true);
    expect(look.opacity).toBeLessThan(0.7);
    expect(look.cursor).toBe('not-allowed');
    expect(look.enabledOpacity).toBe(1);
  });
});

describe('layout at 800 px', () => {
  it('nothing is off-screen on any route; the header wraps', async () => {
    const { page, url } = s;
    await page.setViewportSize({ width: 800, height: 900 });
    const off: string[] = [];
    for (const route of routes) {
      await page.goto(url + route);
      await settle(page);
      const r = await page.evaluate(() => {
        const width = document.documentElement.clientWidth;
        const header = [
          ...document.querySelectorAll('header.app-header > *, header.app-header nav a'),
        ].filter((e) => e.getBoundingClientRect().right > width + 1);
        return {
          scroll: document.documentElement.scrollWidth,
          width,
          header: header.map((e) => e.textContent),
        };
      });
      if (r.scroll > r.width + 1 || r.header.length)
        off.push(`${route}: page ${r.scroll}px, header ${r.header.join(', ')}`);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    expect(off).toEqual([]);
  });

  it('serves a favicon', async () => {
    const { page, url } = s;
    const href = await page.$eval('link[rel=icon]', (l) => (l as HTMLLinkElement).href);
    const res = await page.request.get(href);
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toContain('svg');
    expect(href.startsWith(url)).toBe(true);
  });
});
