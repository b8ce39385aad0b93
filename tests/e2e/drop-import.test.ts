/**
 * Drag-and-drop import in Chromium: a real `drop` event whose DataTransfer holds a File
 * made in the page from the bytes of a real smartcomment file (read from
 * ../shared/data at test time, never copied into the repository) → the trace is listed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appPerFile } from './app-per-file.ts';
import { DATA, dropFile } from './harness.ts';

const FILE = 'conv-26-fault-0.json';
const s = appPerFile();

describe('drag-and-drop import in Chromium', () => {
  it('dropping a file on the page imports it and lists the trace', async () => {
    const { page } = s;
    const bytes = readFileSync(join(DATA, FILE));
    const graphId = JSON.parse(bytes.toString('utf8')).graph_id as string;
    await page.getByTestId('empty-state').waitFor();
    const dispatched = await dropFile(page, bytes, FILE);
    expect(dispatched).toEqual({ overTaken: true, dropTaken: true, size: bytes.length });
    await page.waitForFunction(
      () => document.querySelectorAll('[data-testid=trace-row]').length === 1,
      null,
      {
        timeout: 60_000,
      },
    );
    const row = await page.getByTestId('trace-row').innerText();
    expect(row).toContain(FILE);
    // Stored under its graph_id: the trace page opens from the listed link.
    const link = await page.getByTestId('trace-row').locator('a').first().getAttribute('href');
    expect(decodeURIComponent(link ?? '')).toContain(graphId);
    expect(s.errors).toEqual([]);
  }, 120_000);

  it('two dropped files with the same name (from two folders) are both imported and listed', async () => {
    const { page } = s;
    const files = ['conv-26-fault-1.json', 'conv-26-fault-2.json'].map((f) =>
      readFileSync(join(DATA, f)).toString('base64'),
    );
    await page.evaluate((b64s) => {
      const dt = new DataTransfer();
      for (const b64 of b64s)
        dt.items.add(
          new File([Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0))], 'trace.json', {
            type: 'application/json',
          }),
        );
      const at = { bubbles: true, cancelable: true, dataTransfer: dt, clientX: 400, clientY: 300 };
      document.body.dispatchEvent(new DragEvent('dragenter', at));
      document.body.dispatchEvent(new DragEvent('dragover', at));
      document.body.dispatchEvent(new DragEvent('drop', at));
    }, files);
    await page.waitForFunction(
      () => document.querySelectorAll('[data-testid=trace-row]').length === 3,
      null,
      {
        timeout: 60_000,
      },
    );
    // The import panel lists both (it keyed its rows by name + status, and two equal keys broke it).
    const results = page.getByTestId('import-result');
    await expect.poll(() => results.count()).toBe(2);
    expect(await results.allTextContents()).toEqual([
      expect.stringContaining('trace.json'),
      expect.stringContaining('trace.json'),
    ]);
    expect(s.errors).toEqual([]);
  }, 120_000);
});
