/**
 * The workbench served by a real `memtrace serve` process, fed by the real OpenTelemetry JS
 * exporter: the Traces page lists the received trace live (no reload), imports it through the
 * same import worker as a drop, and updates it when more spans arrive. Served statically (no
 * receiver), the page makes no request for one and shows nothing of it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { exportTurn } from '../serve/agent-spans.ts';
import { startServe } from '../serve/helpers.ts';
import { buildOnce, openApp } from './harness.ts';

/**
 * Console errors and failed responses, leaving out the demo trace the harness answers 404
 * (the browser logs every 4xx it loads as a console error).
 */
function watch(page: Page) {
  const consoleErrors: string[] = [];
  const failed: string[] = [];
  const demo = (url: string) => url.endsWith('/demo/demo-trace.json');
  page.on('response', (r) => r.status() >= 400 && !demo(r.url()) && failed.push(`${r.status()} ${r.url()}`));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    if (/Failed to load resource: .* 404/.test(m.text()) && demo(m.location().url)) return;
    consoleErrors.push(m.text());
  });
  return { consoleErrors, failed };
}

const tmp = mkdtempSync(join(tmpdir(), 'memtrace-serve-e2e-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('memtrace serve in Chromium', () => {
  it('lists a trace as the exporter sends it, imports it like a drop, and updates it when it grows', async () => {
    const serve = await startServe(['--dir', join(tmp, 'traces'), '--app', await buildOnce()]);
    // bypassCSP: axe-core is injected for the accessibility check at the end.
    const s = await openApp({ url: `${serve.base}/`, bypassCSP: true });
    const { page } = s;
    try {
      const { consoleErrors, failed } = watch(page);
      await page.getByTestId('received-live').waitFor();
      await page.getByTestId('received-state').filter({ hasText: '(live)' }).waitFor();
      await page.evaluate(() => Object.assign(window, { sameDocument: true }));

      const traceId = await exportTurn(new OTLPTraceExporter({ url: `${serve.base}/v1/traces` }), {
        batch: true,
        service: 'e2e-agent',
      });
      const row = page.locator(`[data-testid=received-row][data-trace-id="${traceId}"]`);
      await row.waitFor();
      await expect(row.getByTestId('received-spans').textContent()).resolves.toBe('5');
      await expect(row.textContent()).resolves.toContain('memory-agent turn');
      await expect(row.textContent()).resolves.toContain('e2e-agent');

      await row.getByTestId('received-import').click();
      await page.getByTestId('trace-row').waitFor();
      const stored = page.getByTestId('trace-row');
      expect(await stored.count()).toBe(1);
      // Four child spans carry content (the root span is a container): four ops.
      await expect(stored.locator('td').nth(4).textContent()).resolves.toBe('4');
      await expect(stored.textContent()).resolves.toContain(`${traceId}.jsonl`);
      const result = page.getByTestId('import-result');
      await expect(result.textContent()).resolves.toMatch(/OTLP\/JSON: 5 spans → 4 ops/);
      await row.getByTestId('received-open').waitFor();

      // One more span of the same trace arrives: the row grows; Update replaces the stored trace.
      const more = {
        resourceSpans: [
          {
            resource: { attributes: [{ key: 'service.name', value: { stringValue: 'e2e-agent' } }] },
            scopeSpans: [
              {
                spans: [
                  {
                    traceId,
                    spanId: '00000000000000aa',
                    name: 'chat follow-up',
                    startTimeUnixNano: String(Date.now() * 1e6),
                    endTimeUnixNano: String(Date.now() * 1e6 + 1e6),
                    attributes: [
                      { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
                      {
                        key: 'gen_ai.output.messages',
                        value: {
                          stringValue: JSON.stringify([
                            { role: 'assistant', parts: [{ type: 'text', content: 'Anything else?' }] },
                          ]),
                        },
                      },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      };
      const res = await fetch(`${serve.base}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(more),
      });
      expect(res.status).toBe(200);
      await row.getByTestId('received-spans').filter({ hasText: '6' }).waitFor();
      const update = row.getByTestId('received-import');
      await expect(update.textContent()).resolves.toMatch(/Update \(\+1 spans\)/);
      await update.click();
      await row.getByTestId('received-open').waitFor();
      await expect(result.textContent()).resolves.toMatch(/OTLP\/JSON Lines: 6 spans → 5 ops/);
      expect(await page.getByTestId('trace-row').count()).toBe(1);
      await expect(page.getByTestId('trace-row').locator('td').nth(4).textContent()).resolves.toBe('5');

      expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(
        true,
      );
      const axe = await new AxeBuilder({ page })
        .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
        .analyze();
      expect(
        axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id),
      ).toEqual([]);
      expect(s.errors).toEqual([]);
      expect(consoleErrors).toEqual([]);
      expect(failed).toEqual([]);
    } finally {
      await s.close();
      expect(await serve.stop()).toBe(0);
    }
  }, 240_000);

  it('served statically, the page asks nothing of a receiver and shows nothing of it', async () => {
    const s = await openApp();
    try {
      const asked: string[] = [];
      s.page.on('request', (r) => r.url().includes('api/received') && asked.push(r.url()));
      const { consoleErrors, failed } = watch(s.page);
      await s.page.reload();
      await s.page.getByTestId('empty-state').waitFor();
      expect(await s.page.getByTestId('received-live').count()).toBe(0);
      expect(asked).toEqual([]);
      expect(consoleErrors).toEqual([]);
      expect(failed).toEqual([]);
      expect(s.errors).toEqual([]);
    } finally {
      await s.close();
    }
  }, 240_000);
});
