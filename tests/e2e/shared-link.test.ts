/**
 * A shared filter link gives the same rows every time (issue 24, item 4): in ten fresh browser
 * profiles, a file is picked while the app's first-run demo import is still running, then
 * `#/cases?q=<a question of that file>` is opened as a person pastes it (spaces and all). Every
 * time the question is listed: a second import waits for the first instead of being dropped.
 * The expected rows are read from the file in Node.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DocBuilder } from '../helpers/doc-builder.ts';
import { DATA, openApp } from './harness.ts';

const FILE = join(DATA, 'conv-26-fault-3.json');
const doc = JSON.parse(readFileSync(FILE, 'utf8'));
const annotation = doc.data.annotations[0] as { query: string; query_id: string };
/** Annotated questions of the file with this text (the Cases list lists annotated questions). */
const expected = (doc.data.annotations as { query: string }[]).filter(
  (a) => a.query === annotation.query,
).length;
const TRIES = 10;

/**
 * The first-run demo, made large (~15 MB of messages, none of them a question) so its import lasts
 * long enough for a file to be picked while it runs: the shipped demo streams in a few hundred
 * milliseconds, a window the test could miss.
 */
function largeDemo(): string {
  const b = new DocBuilder('graph-large-demo');
  const said = 'I spent the weekend repainting the fence and planting tomatoes in the back garden. ';
  for (let i = 0; i < 40_000; i++)
    b.variable(`D${i}`, JSON.stringify(`${said.repeat(3)}${i}`), { category: 'message' });
  return JSON.stringify(b.doc);
}
const DEMO = largeDemo();

describe('a shared filter link', () => {
  it(`lists the question every time in ${TRIES} fresh browsers, picked while the demo imports`, async () => {
    const listed: number[] = [];
    for (let i = 0; i < TRIES; i++) {
      const s = await openApp({ demoBody: DEMO });
      try {
        const { page, url } = s;
        // The first-run demo import is running: the import buttons are disabled meanwhile.
        await page.locator('button:has-text("Open files…"):disabled').waitFor({ timeout: 60_000 });
        await page.setInputFiles('[data-testid=file-input]', FILE);
        await page.goto(`${url}#/cases?q=${annotation.query}`);
        const rows = page.getByTestId('case-row');
        await page
          .waitForFunction((n) => document.querySelectorAll('[data-testid=case-row]').length >= n, expected, {
            timeout: 60_000,
          })
          .catch(() => {});
        // Both imports done: the list is final (a late row would show the race too).
        await page.locator('button:has-text("Open files…"):enabled').waitFor({ timeout: 60_000 });
        const texts = await rows.allInnerTexts();
        listed.push(texts.filter((t) => t.includes(annotation.query)).length);
        expect(await page.getByTestId('trace-row').count()).toBe(0); // still on the Cases list
      } finally {
        await s.close();
      }
    }
    expect(listed).toEqual(Array(TRIES).fill(expected));
  }, 900_000);
});
