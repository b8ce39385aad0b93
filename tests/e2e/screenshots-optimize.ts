/**
 * Takes the Optimise view screenshot 19-optimise in docs/screenshots:
 * `npx tsx tests/e2e/screenshots-optimize.ts`. The model is the prompt-sensitive scripted model
 * (a test double over HTTP on 127.0.0.1). The data set is the demo conversation split by
 * questions into four conversations (tests/e2e/project-data.ts: training and held-out ones
 * share the dialogue, never a question), written to a temp folder and removed at the end.
 */
import { startScriptedLlmServer } from '../helpers/scripted-llm-server.ts';
import { promptSensitiveModel } from '../optimize/prompt-sensitive-model.ts';
import { addProvider, openApp } from './harness.ts';
import { tempDir, writeDemoQuestionSplit } from './project-data.ts';
import { shot } from './shots.ts';

const tmp = tempDir();
const dataset = writeDemoQuestionSplit(tmp.dir);

const server = await startScriptedLlmServer(promptSensitiveModel({ rewrite: (v) => `${v}\nRULE-A` }));
const s = await openApp();
const { page, url } = s;
await addProvider(s, { base: server.base, model: 'prompt-sensitive-test-double' });
await page.goto(`${url}#/optimize`);
await page.setInputFiles('[data-testid=optimize-file]', dataset);
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
await page.getByTestId('optimize-result').screenshot({ path: shot('19-optimise.png') });
await s.close();
await server.close();
tmp.remove();
