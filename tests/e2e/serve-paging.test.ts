/**
 * The Received panel of a real `memtrace serve` in Chromium with 2,500 received traces: it
 * shows a page of rows (not all of them), says which and of how many, and pages back and
 * forth through the receiver's list (`api/received/?offset&limit`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServe } from '../serve/helpers.ts';
import { buildOnce, openApp } from './harness.ts';

const tmp = mkdtempSync(join(tmpdir(), 'memtrace-serve-paging-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const TRACES = 2500;
const traceId = (n: number) => `c${(n + 1).toString(16).padStart(31, '0')}`;

/** One request with a root span for each trace number in `from`…`to` - 1. */
function request(from: number, to: number): string {
  const spans = [];
  for (let n = from; n < to; n++)
    spans.push({ traceId: traceId(n), spanId: (n + 1).toString(16).padStart(16, '0'), name: `turn ${n}` });
  return JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
}

describe('the Received panel pages', () => {
  it('2,500 received traces: 100 rows a page, next and previous walk the whole list', async () => {
    const serve = await startServe(['--dir', join(tmp, 'traces'), '--app', await buildOnce()]);
    const s = await openApp({ url: `${serve.base}/` });
    const { page } = s;
    try {
      for (let from = 0; from < TRACES; from += 500) {
        const res = await fetch(`${serve.base}/v1/traces`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: request(from, from + 500),
        });
        expect(res.status).toBe(200);
      }
      const panel = page.getByTestId('received-live');
      const text = panel.getByTestId('pager-text');
      await text.filter({ hasText: `traces 1–100 of ${(2500).toLocaleString('en-US')}` }).waitFor();
      const rows = panel.getByTestId('received-row');
      expect(await rows.count()).toBe(100);
      const seen = new Set(await rows.evaluateAll((r) => r.map((x) => x.getAttribute('data-trace-id'))));
      const next = panel.getByRole('button', { name: 'Next →' });
      for (let p = 1; p < 25; p++) {
        await next.click();
        const range = `traces ${(p * 100 + 1).toLocaleString('en-US')}–${(p * 100 + 100).toLocaleString('en-US')} of`;
        await text.filter({ hasText: range }).waitFor();
        expect(await rows.count()).toBe(100);
        for (const id of await rows.evaluateAll((r) => r.map((x) => x.getAttribute('data-trace-id'))))
          seen.add(id);
      }
      expect(await next.isDisabled()).toBe(true);
      expect(seen).toEqual(new Set(Array.from({ length: TRACES }, (_, n) => traceId(n))));
      await panel.getByRole('button', { name: '← Previous' }).click();
      await text.filter({ hasText: 'traces 2,301–2,400 of' }).waitFor();
      expect(s.errors).toEqual([]);
    } finally {
      await s.close();
      expect(await serve.stop()).toBe(0);
    }
  }, 300_000);
});
