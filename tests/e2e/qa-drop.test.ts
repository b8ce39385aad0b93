/**
 * A QA file dropped beside a span trace in Chromium: a real Vercel AI SDK span export (read from
 * ../shared/data/otel-thirdparty at test time) and a QA file written here dropped together →
 * the question is a case in the trace's Cases list, its page shows the golden answer, the
 * trace's own answer and the span that gave it on the case path; after a reload it is still
 * there (stored through the engine). A broken QA file dropped next is one line naming the file
 * and the line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { SHARED_DATA } from '../helpers/shared-data.ts';
import { appPerFile } from './app-per-file.ts';
import { dropFile } from './harness.ts';

const s = appPerFile();
const VERCEL = 'vercel-ai-sdk-spans.json';
const QUESTION = 'And what is 3 + 3?';
/** The golden answer is wrong on purpose (the trace answers "3 + 3 equals 6."): the case fails. */
const QA = [{ question: QUESTION, answer: '7' }];

/** Drops several files at once, as a person dragging a selection. */
function dropFiles(page: Page, files: { name: string; b64: string }[]) {
  return page.evaluate((list) => {
    const dt = new DataTransfer();
    for (const f of list)
      dt.items.add(
        new File([Uint8Array.from(atob(f.b64), (ch) => ch.charCodeAt(0))], f.name, {
          type: 'application/json',
        }),
      );
    const at = { bubbles: true, cancelable: true, dataTransfer: dt, clientX: 400, clientY: 300 };
    document.body.dispatchEvent(new DragEvent('dragenter', at));
    document.body.dispatchEvent(new DragEvent('dragover', at));
    const drop = new DragEvent('drop', at);
    document.body.dispatchEvent(drop);
    return drop.defaultPrevented;
  }, files);
}

/** The trace page's Cases list, opened from the trace list. */
async function traceCases(page: Page): Promise<string[]> {
  await page.getByTestId('trace-row').first().locator('a').first().click();
  const list = page.locator('ul.cases');
  await list.waitFor({ timeout: 30_000 });
  return list.locator('li').allInnerTexts();
}

describe('a QA file dropped beside a span trace in Chromium', () => {
  it('its question is a case of the trace, with the golden answer, the prediction and the answering span, after a reload too', async () => {
    const { page } = s;
    const trace = readFileSync(join(SHARED_DATA, 'otel-thirdparty', VERCEL));
    await page.getByTestId('empty-state').waitFor();
    const taken = await dropFiles(page, [
      { name: 'questions.json', b64: Buffer.from(JSON.stringify(QA)).toString('base64') },
      { name: VERCEL, b64: trace.toString('base64') },
    ]);
    expect(taken).toBe(true);
    await page.waitForFunction(
      () => document.querySelectorAll('[data-testid=trace-row]').length === 1,
      null,
      {
        timeout: 60_000,
      },
    );
    const qaResult = page.getByTestId('import-result').filter({ hasText: 'questions.json' });
    await qaResult.waitFor({ timeout: 30_000 });
    expect(await qaResult.innerText()).toContain(`1 joined to ${VERCEL} (1 failed)`);
    expect(await traceCases(page)).toEqual([expect.stringContaining(QUESTION)]);

    // A reload of the trace page: the cases come back from storage, the engine joins the file again.
    await page.reload();
    const cases = page.locator('ul.cases li');
    await cases.first().waitFor({ timeout: 30_000 });
    expect(await cases.allInnerTexts()).toEqual([expect.stringContaining(QUESTION)]);
    await page.locator('ul.cases a').first().click();
    await page.locator('h1.question').waitFor({ timeout: 30_000 });
    expect(await page.locator('h1.question').innerText()).toBe(QUESTION);
    expect(await page.getByTestId('golden').innerText()).toBe('7');
    expect(await page.getByTestId('prediction').innerText()).toBe('3 + 3 equals 6.');
    const path = page.getByTestId('case-path');
    await expect.poll(() => path.innerText(), { timeout: 60_000 }).toContain('ai.generateText.doGenerate');
    expect(s.errors).toEqual([]);
  }, 240_000);

  it('a broken QA file is refused in one line naming the file and the line', async () => {
    const { page } = s;
    await page.goto(`${s.url}#/`);
    const bad = '{"question": "A?", "answer": "x"}\n{"question": "B?", "answer": \n';
    expect(await dropFile(page, Buffer.from(bad), 'bad-qa.jsonl')).toMatchObject({ dropTaken: true });
    const result = page.getByTestId('import-result').filter({ hasText: 'bad-qa.jsonl' });
    await result.waitFor({ timeout: 30_000 });
    const issues = await result.locator('ul.issues li').allInnerTexts();
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(/^bad-qa\.jsonl: line 2: not JSON/);
    expect(s.errors).toEqual([]);
  }, 120_000);
});
