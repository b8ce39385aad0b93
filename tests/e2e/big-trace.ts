/**
 * A trace bigger than 8 MB for the end-to-end tests and the screenshot: the synthetic
 * long-context graph (bench/synthetic.ts, failed questions with UpdateError labels),
 * generated at run time into a temp file — never stored in the repository.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { syntheticText } from '../../bench/synthetic.ts';
import { importTraces } from './harness.ts';

export interface BigTrace {
  path: string;
  text: string;
  bytes: number;
  remove(): void;
}

export function writeBigTrace(targetBytes = 12e6): BigTrace {
  const dir = mkdtempSync(join(tmpdir(), 'memtrace-big-'));
  const path = join(dir, 'synthetic-big.json');
  const text = syntheticText({ targetBytes });
  writeFileSync(path, text);
  return {
    path,
    text,
    bytes: statSync(path).size,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Imports the file through the file input and waits for its row. */
export async function importFile(page: Page, path: string): Promise<void> {
  await page.getByTestId('empty-state').waitFor();
  await importTraces(page, [path], 1, 120_000);
}
