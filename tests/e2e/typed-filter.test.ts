/**
 * A filter box writes what was typed to the URL after a short pause. A person who leaves the
 * page inside that pause (a link, a new URL) stays where they went: the waiting write is
 * dropped, not applied over their navigation (it used to pull them back to the Cases list —
 * the e2e search test then waited on a page that was never shown). On the demo trace.
 */
import { describe, expect, it } from 'vitest';
import { appPerFile } from './app-per-file.ts';

const s = appPerFile({ demo: true });

/** Resolves after a page timer of `ms`: every timer the page set before with a shorter delay has run. */
const pageTimersRun = (ms: number) =>
  s.page.evaluate((delay) => new Promise<void>((resolve) => setTimeout(resolve, delay)), ms);

/** Types `text` into the Cases filter as one input event, then (in the same task) goes to `goTo`. */
function typeIntoFilter(text: string, goTo: string | null) {
  return s.page.evaluate(
    ([value, hash]) => {
      const box = document.querySelector<HTMLInputElement>('[data-testid=case-filter]')!;
      // The navigation comes from a timer due just before the write waiting after the typing:
      // the write then runs after the hash changed but before its hashchange event is handled
      // (as a navigation under a loaded CPU can fall).
      if (hash) setTimeout(() => (location.hash = hash), 0);
      box.value = value;
      box.dispatchEvent(new Event('input', { bubbles: true }));
      const end = performance.now() + 400;
      while (performance.now() < end) {} // both timers are due when this task ends
    },
    [text, goTo] as const,
  );
}

describe('a filter typed just before leaving the page', () => {
  it('is written to the URL when the person stays', async () => {
    const { page, url } = s;
    await page.goto(`${url}#/cases`);
    await page.getByTestId('case-row').first().waitFor();
    await typeIntoFilter('caroline', null);
    await pageTimersRun(1000);
    expect(new URL(page.url()).hash).toBe('#/cases?q=caroline');
  });

  it('does not pull the person back from the page they went to', async () => {
    const { page, url } = s;
    await page.goto(`${url}#/cases`);
    await page.getByTestId('case-row').first().waitFor();
    await typeIntoFilter('melanie', '#/search?q=sunrise');
    await pageTimersRun(1000);
    expect(new URL(page.url()).hash).toBe('#/search?q=sunrise');
    await page.locator('#search-box').waitFor();
  });
});
