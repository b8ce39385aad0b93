/**
 * Screenshots 12–13 of the neighbourhood drawing on a trace bigger than 8 MB (drawn from the
 * analysis worker's layout): `npx tsx tests/e2e/screenshots-neighbourhood.ts`. The trace is
 * bench/synthetic.ts's long-context run (made-up words), written to a temp file.
 */
import { writeBigTrace } from './big-trace.ts';
import { openApp } from './harness.ts';
import { importAll, shot } from './shots.ts';

const big = writeBigTrace();
const s = await openApp();
const { page, url } = s;
try {
  await importAll(page, [big.path]);
  await page.goto(`${url}#/cases?labelled=labelled`);
  await page.getByTestId('case-row').first().locator('a').first().click();
  const hood = page.getByTestId('neighbourhood-view');
  await hood.locator('g.node.focus').first().waitFor({ timeout: 60_000 });
  // The case opens on its labelled op: the update that trimmed the evidence out of the window.
  await page.getByTestId('attribution-type').waitFor({ timeout: 120_000 });
  await hood.scrollIntoViewIfNeeded();
  await page.waitForTimeout(300);
  await page.screenshot({ path: shot('12-neighbourhood-big-trace.png') });
  // The case's answer op: the retrieved context and the question in, the prediction out to the judge.
  const answer = page.getByTestId('case-path').locator('a', { hasText: 'long-context.answer' }).first();
  const id = await answer.getAttribute('title');
  await answer.click();
  await hood.locator(`g.node.focus[data-id="${id}"]`).waitFor({ timeout: 30_000 });
  await page.waitForTimeout(300);
  await hood.screenshot({ path: shot('13-neighbourhood-big-trace-answer.png') });
  console.log(
    `${(big.bytes / 1e6).toFixed(1)} MB trace → docs/screenshots/12-, 13-neighbourhood-big-trace*.png`,
  );
} finally {
  await s.close();
  big.remove();
}
