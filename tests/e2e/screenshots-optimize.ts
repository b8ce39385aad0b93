/**
 * Takes the Optimise view screenshot in docs/screenshots: `npx tsx tests/e2e/screenshots-optimize.ts`.
 * The model is the prompt-sensitive scripted model (a test double over HTTP on 127.0.0.1).
 */
import { join } from 'node:path';
import { startScriptedLlmServer } from '../helpers/scripted-llm-server.ts';
import { promptSensitiveModel } from '../optimize/prompt-sensitive-model.ts';
import { addProvider, openApp, ROOT } from './harness.ts';

const server = await startScriptedLlmServer(promptSensitiveModel({ rewrite: (v) => `${v}\nRULE-A` }));
const s = await openApp();
const { page, url } = s;
await addProvider(s, { base: server.base, model: 'prompt-sensitive-test-double' });
await page.goto(`${url}#/optimize`);
await page.setInputFiles('[data-testid=optimize-file]', join(ROOT, '../shared/data/locomo/locomo-dev.json'));
await page.getByTestId('optimize-rounds').fill('3');
await page.getByLabel('Sessions').fill('3');
await page.getByLabel('Questions per conversation').fill('10');
// Three training conversations (one per round), one held out.
const train = page.getByTestId('optimize-train');
await train.nth(2).check();
await train.nth(3).check();
await page.getByTestId('optimize-start').click();
await page.locator('[data-testid=optimize-result][data-status=done]').waitFor({ timeout: 600_000 });
await page.locator('[data-testid=optimize-round] details').first().click();
await page.waitForTimeout(300);
await page
  .getByTestId('optimize-result')
  .screenshot({ path: join(ROOT, 'docs/screenshots/19-optimise.png') });
await s.close();
await server.close();
