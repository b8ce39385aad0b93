/**
 * The settings panel in Debian's Chromium against the local mock LLM server: a
 * "test connection" shows the tokens used; keys stay out of exports; a server that
 * refuses CORS gets the CORS explanation; no WebGPU is said clearly.
 */
import { resolve } from 'node:path';
import { svelte, vitePreprocess } from '@sveltejs/vite-plugin-svelte';
import type { Browser, Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.ts';
import { type MockLlmServer, startMockLlmServer } from './mock-llm-server.ts';

const KEY = 'sk-browser-SECRET-00112233445566';
let llm: MockLlmServer;
let vite: ViteDevServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  llm = await startMockLlmServer();
  vite = await createServer({
    configFile: false,
    root: resolve('tests/llm/browser'),
    cacheDir: resolve('node_modules/.vite-llm-browser-test'),
    logLevel: 'error',
    plugins: [svelte({ configFile: false, preprocess: vitePreprocess() })],
    server: { host: '127.0.0.1', port: 0, strictPort: false, fs: { allow: [resolve('.')] }, hmr: false },
    optimizeDeps: { noDiscovery: true, include: ['dexie'] },
  });
  await vite.listen();
  browser = await launchChromium();
  page = await browser.newPage();
  page.setDefaultTimeout(10_000);
  const url = vite.resolvedUrls!.local[0];
  await page.goto(url);
});

afterAll(async () => {
  await browser?.close();
  await vite?.close();
  await llm?.close();
});

async function addProfile(preset: string) {
  await page.getByLabel('Preset').selectOption({ label: preset });
  await page.getByRole('button', { name: 'Add provider' }).click();
}

describe('LLM settings in Chromium', () => {
  it('"Test connection" against the local server shows the reply and the tokens used', async () => {
    await addProfile('OpenAI');
    await page.getByLabel('Base URL').fill(llm.openaiBase);
    await page.getByLabel('Base URL').dispatchEvent('change');
    await page.getByLabel('Model').fill('qwen3:8b');
    await page.getByLabel('Model').dispatchEvent('change');
    await page.getByLabel('API key').fill(KEY);
    await page.getByLabel('API key').dispatchEvent('change');
    await page.getByRole('button', { name: 'Test connection' }).click();
    const result = page.getByTestId('llm-test-result');
    await expect.poll(() => result.textContent(), { timeout: 15_000 }).toMatch(/11 \+ 7 tokens/);
    expect(await result.textContent()).toMatch(/Connected to\s+qwen3:8b/);
    expect(await page.getByTestId('llm-usage').textContent()).toMatch(/11\s+in\s+·\s+7\s+out/);
    const req = llm.requests.at(-1)!;
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req.headers.origin).toMatch(/^http:\/\/127\.0\.0\.1:/);
  });

  it('the key is in memory only: not in the export, not in localStorage unless remembered', async () => {
    await page.getByRole('button', { name: 'Export settings' }).click();
    const exported = await page.getByTestId('llm-export').textContent();
    expect(exported).toContain('qwen3:8b');
    expect(exported).not.toContain(KEY);
    const stored = () => page.evaluate(() => JSON.stringify({ ...localStorage }));
    expect(await stored()).not.toContain(KEY);
    await page.getByLabel('Remember on this device').check();
    expect(await stored()).toContain(KEY);
    await page.getByLabel('Remember on this device').uncheck();
    expect(await stored()).not.toContain(KEY);
  });

  it('Anthropic from the page sends the browser-access header', async () => {
    await addProfile('Anthropic');
    await page.getByLabel('Base URL').fill(llm.url);
    await page.getByLabel('Base URL').dispatchEvent('change');
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect
      .poll(() => page.getByTestId('llm-test-result').textContent(), { timeout: 15_000 })
      .toMatch(/tokens/);
    expect(llm.requests.at(-1)!.headers['anthropic-dangerous-direct-browser-access']).toBe('true');
    expect(await page.getByTestId('llm-usage').textContent()).toMatch(/22\s+in\s+·\s+14\s+out/);
  });

  it('a server without CORS headers gets the CORS explanation', async () => {
    await addProfile('Ollama');
    await page.getByLabel('Base URL').fill(`${llm.url}/nocors/v1`);
    await page.getByLabel('Base URL').dispatchEvent('change');
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect
      .poll(() => page.getByTestId('llm-test-result').textContent(), { timeout: 15_000 })
      .toMatch(/CORS/);
    expect(await page.getByTestId('llm-test-result').textContent()).toMatch(/network/);
  });

  it('the in-browser provider says clearly that there is no usable WebGPU', async () => {
    await addProfile('In-browser (WebLLM)');
    await expect
      .poll(() => page.getByTestId('webllm-gpu-message').textContent(), { timeout: 15_000 })
      .toMatch(/WebGPU|GPU adapter/);
  });
});
