/**
 * The app attributes with the same matcher as the CLI's default: in Debian's Chromium the
 * analysis worker loads the word vectors the build emitted, and the case workspace's
 * attribution panel finds a paraphrased, date-resolved memory — "Caroline went camping in the
 * mountains with her kids in June 2023" for "We took the kids to the mountains and slept in
 * tents last month!" said in July — in the store, so the search that missed it is at fault.
 * Without meaning-aware matching this case is an ExtractionError (the unit test shows it).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportSmartcomment } from '../../src/core/trace/index.ts';
import { factRun } from '../helpers/llm-memory-graph.ts';
import { appPerFile } from './app-per-file.ts';

const s = appPerFile();
const run = factRun({
  evidence: {
    speaker: 'Caroline',
    text: 'We took the kids to the mountains and slept in tents last month!',
    date: '10:37 am on 7 July, 2023',
  },
  facts: ['Caroline went camping in the mountains with her kids in June 2023.'],
  others: [
    {
      said: {
        speaker: 'Melanie',
        text: 'I ran a charity race last Saturday.',
        date: '1:14 pm on 25 May, 2023',
      },
      facts: ['Melanie ran a charity race on 20 May 2023.'],
    },
  ],
  question: 'When did Caroline go camping in the mountains?',
  gold: 'June 2023',
  retrieved: false,
});
const file = join(mkdtempSync(join(tmpdir(), 'memtrace-llm-e2e-')), 'camping.json');
writeFileSync(file, exportSmartcomment(run.doc, { indent: 2 }));

describe('attribution in the app matches LLM-written memories by meaning', () => {
  it('the attribution panel blames the search, with word vectors loaded in the worker', async () => {
    const { page } = s;
    await page.getByTestId('empty-state').waitFor();
    await page.setInputFiles('[data-testid=file-input]', [file]);
    await page.getByTestId('trace-row').first().waitFor({ timeout: 60_000 });
    await page.goto(
      `${s.url}#/t/${encodeURIComponent(run.doc.graph_id)}/case/${encodeURIComponent(run.c.queryId)}`,
    );
    const panel = page.getByTestId('attribution');
    await panel.getByTestId('attribution-type').waitFor({ timeout: 60_000 });
    expect((await panel.getByTestId('attribution-type').innerText()).trim()).toBe('RetrievalError');
    expect(await panel.getByTestId('attribution-op').getAttribute('data-op-id')).toBe(run.ops.search);
    expect(await panel.getByTestId('attribution-matcher').innerText()).toMatch(
      /word vectors \(100,000 words\)/,
    );
    expect(s.errors).toEqual([]);
  });
});
