/**
 * Names, never raw ids, from the first frame (issue 33, build item 6): in a fresh session (the
 * page reloaded after the import: a new engine worker, nothing loaded in it) a labelled case is
 * clicked the moment the Cases list shows, and the page's text where ops are named — the case
 * panel with its label's op, the attribution panel, the path, the list — is sampled at every DOM
 * change and every frame until the verdict and all names are there. No sample may hold a raw op
 * id (or the start of one, as a shortened id shows): the ids are read from the file in Node.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA, importTraces, openApp, type Session } from './harness.ts';

const FAULT = join(DATA, 'conv-26-fault-0.json');
const doc = JSON.parse(readFileSync(FAULT, 'utf8'));
const opIds: string[] = doc.data.operations.map((o: { op_id: string }) => o.op_id);
const opName = new Map<string, string>(
  doc.data.operations.map((o: { op_id: string; op_name: string }) => [o.op_id, o.op_name]),
);
/** A labelled case of the file: its question, and the op its label names. */
const labelled = doc.data.annotations[0] as { query: string; final_op_id: string };

/** Where ops are named on the case page and in the list (the op inspector shows the id on purpose). */
const REGIONS =
  '[data-testid=case-panel], [data-testid=attribution], [data-testid=case-path], [data-testid=case-row]';

/** Raw op ids, whole or cut (`op-1a0fd481a1d4…`), in `text`: any run of 8+ id characters that starts a real op id. */
function rawIdsIn(text: string): string[] {
  const found = text.match(/op-[0-9a-f]{8,}/g) ?? [];
  return found.filter((m) => opIds.some((id) => id.startsWith(m)));
}

let s: Session;
beforeAll(async () => {
  s = await openApp();
  await importTraces(s.page, [FAULT], 1, 120_000);
}, 300_000);
afterAll(async () => {
  await s?.close();
});

describe('op names from the first frame (fresh session, case clicked at once)', () => {
  it('no sample of the case page shows a raw op id where a name belongs', async () => {
    const { page, url } = s;
    await page.goto(`${url}#/cases`);
    await page.reload();
    const row = page.getByTestId('case-row').filter({ hasText: labelled.query }).locator('a').first();
    await row.waitFor({ timeout: 60_000 });
    await page.evaluate((regions) => {
      const w = window as unknown as { __samples: string[]; __stop: boolean };
      w.__samples = [];
      w.__stop = false;
      const sample = () => {
        const text = [...document.querySelectorAll<HTMLElement>(regions)].map((e) => e.innerText).join('\n');
        if (w.__samples.at(-1) !== text) w.__samples.push(text);
      };
      // Mutation callbacks run before the browser paints: every state that could be painted is seen.
      new MutationObserver(() => {
        if (!w.__stop) sample();
      }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
      const frame = () => {
        sample();
        if (!w.__stop) requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
    }, REGIONS);
    await row.click();
    await page.getByTestId('attribution-type').waitFor({ timeout: 120_000 });
    await page.locator('[data-testid=case-path]:not([data-stale])').waitFor();
    await page.getByTestId('case-label-op').waitFor();
    // Every name asked for has come (no placeholder left), then sampling stops.
    await page.waitForFunction((regions) => {
      const busy = [...document.querySelectorAll(regions)].some((r) => r.querySelector('[aria-busy=true]'));
      return !busy;
    }, REGIONS);
    const samples = await page.evaluate(() => {
      const w = window as unknown as { __samples: string[]; __stop: boolean };
      w.__stop = true;
      return w.__samples;
    });
    // Sampled from the list to the named case: the label's op by its name (from the file) in the last one.
    expect(samples.length).toBeGreaterThan(2);
    expect(samples.at(-1)).toContain(labelled.query);
    expect(await page.getByTestId('case-label-op').innerText()).toContain(opName.get(labelled.final_op_id));
    const raw = samples.flatMap((text, i) => rawIdsIn(text).map((id) => `sample ${i}: ${id}`));
    expect(raw).toEqual([]);
    expect(s.errors).toEqual([]);
  }, 240_000);
});
