/**
 * The model-driven views in Debian's Chromium, with the prompt-sensitive scripted model (a
 * test double over real HTTP on 127.0.0.1) as the Settings profile: "Run a system" in LLM
 * mode stores a trace and counts the calls the server answered; the Optimise view runs a
 * round of the loop in the systems worker, shows the accepted rewrite with its scores and
 * keeps it after a reload. The key typed in Settings is in no request body and no stored row.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedLlmServer, startScriptedLlmServer } from '../helpers/scripted-llm-server.ts';
import { promptSensitiveModel } from '../optimize/prompt-sensitive-model.ts';
import { addProvider, openApp, ROOT, type Session } from './harness.ts';

const LOCOMO = join(ROOT, '../shared/data/locomo');
const KEY = 'sk-test-optimise-view-0123456789';
let s: Session;
let server: ScriptedLlmServer;

beforeAll(async () => {
  [s, server] = await Promise.all([
    openApp(),
    startScriptedLlmServer(promptSensitiveModel({ rewrite: (v) => `${v}\nRULE-A` })),
  ]);
}, 240_000);
afterAll(async () => {
  await s?.close();
  await server?.close();
});

describe('LLM mode and the Optimise view in Chromium', () => {
  it('sets up the scripted server as the provider', async () => {
    await addProvider(s, { base: server.base, model: 'prompt-sensitive-test-double', key: KEY });
  });

  it('runs Mem0 in LLM mode and shows every call the server answered', async () => {
    const { page } = s;
    await page.goto(`${s.url}#/run`);
    await page.setInputFiles('[data-testid=run-file]', join(LOCOMO, 'v2/26.json'));
    await page.getByTestId('run-conversation').waitFor();
    await page.getByTestId('run-system').selectOption('mem0');
    await page.getByTestId('run-sessions').fill('1');
    await page.getByTestId('run-mode').selectOption('llm');
    await page.getByTestId('run-mode-profile').waitFor();
    const before = server.calls.length;
    await page.getByTestId('run-start').click();
    await page.locator('[data-testid=run-result][data-status=done]').waitFor({ timeout: 120_000 });
    const served = server.calls.length - before;
    expect(served).toBeGreaterThan(0);
    expect(await page.getByTestId('run-result-llm').innerText()).toContain(`${served} model call(s)`);
    expect(await page.getByTestId('run-trace-link').innerText()).toMatch(/-llm\.json$/);
  }, 180_000);

  it('runs one round of the loop, shows the accepted rewrite, and keeps it after a reload', async () => {
    const { page } = s;
    await page.getByTestId('nav-optimize').click();
    await page.setInputFiles('[data-testid=optimize-file]', join(LOCOMO, 'locomo-dev.json'));
    await page.getByTestId('optimize-rounds').fill('1');
    await page.getByLabel('Sessions').fill('2');
    await page.getByLabel('Questions per conversation').fill('8');
    await page.getByTestId('optimize-start').click();
    await page.locator('[data-testid=optimize-result][data-status=done]').waitFor({ timeout: 240_000 });
    const round = page.locator('[data-testid=optimize-round]').first();
    expect(await round.getAttribute('data-decision')).toBe('accepted');
    expect(await round.innerText()).toMatch(/accepted: training .* → .*, held-out/);
    expect(await page.locator('[data-testid=optimize-chart] circle').count()).toBeGreaterThan(0);
    await page.reload();
    await page.locator('[data-testid=optimize-round][data-decision=accepted]').waitFor();
    const stored = await page.evaluate(async () => {
      const req = indexedDB.open('memtrace-workbench');
      const db: IDBDatabase = await new Promise((r) => {
        req.onsuccess = () => r(req.result);
      });
      const rows: unknown[] = await new Promise((r) => {
        const q = db.transaction('runs').objectStore('runs').getAll();
        q.onsuccess = () => r(q.result);
      });
      return JSON.stringify(rows);
    });
    expect(stored).toContain('"kind":"optimize"');
    expect(stored).not.toContain(KEY);
    for (const c of server.calls) expect(JSON.stringify(c.request.body)).not.toContain(KEY);
    expect(s.errors).toEqual([]);
  }, 300_000);
});
