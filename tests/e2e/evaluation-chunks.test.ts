/**
 * The Evaluation view loads only what it renders (issue 33): opening it, running an evaluation
 * (attributed in the engine worker) and drawing its charts loads no chunk of the report builder
 * on the page's thread — before, its charts' label sizing came through core/report's full face
 * and the 1.7 MB report chunk (zod, the attributors, compromise) loaded with the view. The
 * chunks are told apart by their source maps in the build (which sources each one holds), the
 * page's loads by its own resource timing (a worker's loads are not the page's).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOnce, DATA, importTraces, openApp, type Session } from './harness.ts';

/** Sources whose chunk the Evaluation view must not load: the report builder and the NLP it brings. */
const HEAVY = ['src/core/report/build.ts', 'node_modules/compromise/'];

let s: Session;
let heavyChunks: string[];
beforeAll(async () => {
  const assets = join(await buildOnce(), 'assets');
  heavyChunks = readdirSync(assets)
    .filter((f) => f.endsWith('.js.map'))
    .filter((f) => {
      // The Report view's chunk (its builder now runs in the engine worker) is not the Evaluation view's either.
      if (f.startsWith('report-')) return true;
      const sources: string[] = JSON.parse(readFileSync(join(assets, f), 'utf8')).sources ?? [];
      return sources.some((src) => HEAVY.some((h) => src.includes(h)));
    })
    .map((f) => f.slice(0, -'.map'.length));
  s = await openApp();
  await importTraces(s.page, [join(DATA, 'conv-26-fault-0.json')], 1, 120_000);
}, 600_000);
afterAll(async () => {
  await s?.close();
});

/** The script files the page's thread has loaded so far (its resource timing). */
function pageScripts(): Promise<string[]> {
  return s.page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .map((e) => e.name.split('/').pop() ?? '')
      .filter((f) => f.endsWith('.js')),
  );
}

describe('the Evaluation view on the page thread', () => {
  it('opens, runs and draws its charts without loading the report chunk', async () => {
    const { page, url } = s;
    // The report chunk and a chunk holding the heavy sources exist in the build: the check below means something.
    expect(heavyChunks.some((f) => f.startsWith('report-'))).toBe(true);
    expect(heavyChunks.some((f) => !f.startsWith('report-'))).toBe(true);
    const before = new Set(await pageScripts());
    await page.goto(`${url}#/eval`);
    await page.getByTestId('eval-run').click();
    await page.locator('[data-testid=eval-status][data-status=done]').waitFor({ timeout: 180_000 });
    await page.locator('[data-testid=confusion] rect').first().waitFor();
    await page.locator('[data-testid=by-error-type] [data-testid=acc-row]').first().waitFor();
    const loaded = (await pageScripts()).filter((f) => !before.has(f));
    // The view's own chunk was loaded now (it is not part of the start), so `loaded` is the view's.
    expect(loaded.some((f) => f.startsWith('EvaluationView-'))).toBe(true);
    expect(loaded.filter((f) => heavyChunks.includes(f))).toEqual([]);
    expect(s.errors).toEqual([]);
  }, 300_000);
});
