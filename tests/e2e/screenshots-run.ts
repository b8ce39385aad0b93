/**
 * Takes the "Run a system" screenshots 14–16 in docs/screenshots: `npx tsx tests/e2e/screenshots-run.ts`.
 * The conversation is the project's demo conversation (scripts/demo/conversation.json, LoCoMo's layout).
 * Offline it runs in a fraction of a second, so the run caught mid-way is in LLM mode, with the
 * prompt-sensitive scripted model (a test double over HTTP on 127.0.0.1) answering after 150 ms.
 */
import { startScriptedLlmServer } from '../helpers/scripted-llm-server.ts';
import { promptSensitiveModel } from '../optimize/prompt-sensitive-model.ts';
import { addProvider, openApp } from './harness.ts';
import { DEMO_CONVERSATION } from './project-data.ts';
import { shot } from './shots.ts';

const model = promptSensitiveModel({ rewrite: (v) => v });
const server = await startScriptedLlmServer((r) => new Promise((ok) => setTimeout(() => ok(model(r)), 150)));
const s = await openApp();
const { page, url } = s;
try {
  await page.goto(`${url}#/run`);
  await page.getByTestId('run-empty').waitFor();
  await page.screenshot({ path: shot('14-run-system-empty.png') });
  await page.setInputFiles('[data-testid=run-file]', DEMO_CONVERSATION);
  await page.getByTestId('run-conversation').waitFor();
  await page.getByTestId('run-system').selectOption('mem0');
  await page.getByTestId('run-sessions').fill('2');
  await page.getByTestId('run-start').click();
  await page.locator('[data-testid=run-result][data-status=done]').waitFor({ timeout: 60_000 });
  await page.locator('[data-testid=run-failed-cases] li').first().waitFor();
  await page.waitForTimeout(300);
  await page.screenshot({ path: shot('15-run-system-done.png'), fullPage: true });
  // The whole conversation in LLM mode, caught mid-run (a question answered), then cancelled.
  await addProvider(s, { base: server.base, model: 'prompt-sensitive-test-double' });
  await page.goto(`${url}#/run`);
  await page.setInputFiles('[data-testid=run-file]', DEMO_CONVERSATION);
  await page.getByTestId('run-conversation').waitFor();
  await page.getByTestId('run-system').selectOption('mem0');
  await page.getByTestId('run-sessions').fill('');
  await page.getByTestId('run-mode').selectOption('llm');
  await page.getByTestId('run-mode-profile').waitFor();
  await page.getByTestId('run-start').click();
  await page.waitForFunction(
    () => /^[1-9]\d* \//.test(document.querySelector('[data-testid=run-questions-done]')?.textContent ?? ''),
    null,
    { timeout: 120_000 },
  );
  await page.screenshot({ path: shot('16-run-system-progress.png') });
  await page.getByTestId('run-cancel').click();
  await page.locator('[data-testid=run-result][data-status=cancelled]').waitFor();
} finally {
  await s.close();
  await server.close();
}
