/**
 * The span view in Chromium on a real third-party file (Strands Agents' OTLP/JSON export,
 * read from ../shared/data at test time): its tree (names, nesting, model, tokens), a span's
 * text, the tree keys, and the links to the op page and back. The expected tree is read off
 * the file by hand: main → invoke_agent → two event-loop cycles; the first holds a chat and
 * a tool call (which holds the tool's own span), the second a chat answering "London, UK".
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { describe, expect, it } from 'vitest';
import { SHARED_DATA } from '../helpers/shared-data.ts';
import { appPerFile } from './app-per-file.ts';
import { dropFile } from './harness.ts';

// bypassCSP: axe-core is injected into the page (the built app sends a CSP).
const s = appPerFile({ bypassCSP: true });

/** The rows shown, as `level name` lines (the name cell only). */
async function rows(): Promise<string[]> {
  return s.page.$$eval('[data-testid=span-row]', (els) =>
    els
      .map((e) => ({ top: Number.parseFloat((e as HTMLElement).style.top), e }))
      .sort((a, b) => a.top - b.top)
      .map(({ e }) => `${e.getAttribute('aria-level')} ${e.querySelector('.label')?.textContent ?? ''}`),
  );
}

const selectedName = () => s.page.locator('[data-testid=span-row][aria-selected=true] .label').innerText();

describe('span view in Chromium', () => {
  it('shows the tree of a Strands Agents OTLP file, its text, keys and links to the op and back', async () => {
    const { page } = s;
    const bytes = readFileSync(join(SHARED_DATA, 'otel-thirdparty/strands-agents-otlp.json'));
    await page.getByTestId('empty-state').waitFor();
    expect(await dropFile(page, bytes, 'strands-agents-otlp.json')).toMatchObject({ dropTaken: true });
    await page.waitForFunction(
      () => document.querySelectorAll('[data-testid=trace-row]').length === 1,
      null,
      {
        timeout: 60_000,
      },
    );
    await page.getByTestId('trace-row').locator('a').first().click();
    await page.getByTestId('trace-spans-link').click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=span-row]').length === 8, null, {
      timeout: 60_000,
    });
    expect(await rows()).toEqual([
      '1 main',
      '2 invoke_agent Strands Agents',
      '3 execute_event_loop_cycle',
      '4 chat',
      '4 execute_tool get_user_location',
      '5 get_user_location',
      '3 execute_event_loop_cycle',
      '4 chat',
    ]);
    const chat = page.getByTestId('span-row').nth(3);
    expect(await chat.innerText()).toMatch(/openai\/gpt-5-mini[\s\S]*134 → 84/);
    expect(await page.getByTestId('span-tree').getAttribute('role')).toBe('tree');

    // Keys: End selects the last chat, whose answer is shown as text.
    await page.getByTestId('span-tree').focus();
    await page.keyboard.press('End');
    expect(await selectedName()).toBe('chat');
    const outputs = page.getByTestId('span-outputs');
    await outputs.getByTestId('var-value').first().waitFor();
    expect(await outputs.innerText()).toContain('London, UK');
    expect(await page.getByTestId('span-detail').innerText()).toMatch(/tokens\s+163 → 103/);
    // ← on a leaf steps to its parent; ← again closes it; → opens it.
    await page.keyboard.press('ArrowLeft');
    expect(await selectedName()).toBe('execute_event_loop_cycle');
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=span-row]').length === 7);
    expect(
      await page.locator('[data-testid=span-row][aria-selected=true]').getAttribute('aria-expanded'),
    ).toBe('false');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=span-row]').length === 8);
    // Home, then down to the first chat; Enter opens its op page.
    await page.keyboard.press('Home');
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
    expect(await selectedName()).toBe('chat');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => location.hash.includes('/op/'));
    const opHash = await page.evaluate(() => location.hash);
    await page.getByTestId('op-inspector').waitFor();
    // And back: the op page links to its span, selected in the tree.
    await page.getByTestId('op-span-link').click();
    await page.locator('[data-testid=span-row][aria-selected=true]').waitFor();
    expect(await selectedName()).toBe('chat');
    expect(await page.locator('[data-testid=span-row][aria-selected=true]').getAttribute('aria-level')).toBe(
      '4',
    );
    const opId = decodeURIComponent(opHash.split('/op/')[1]);
    expect(await page.getByTestId('span-op-link').getAttribute('href')).toContain(encodeURIComponent(opId));
    expect(await page.getByTestId('span-inputs').innerText()).toContain('testing');
    expect(s.errors).toEqual([]);
  }, 240_000);

  it('has no serious or critical axe-core violation (WCAG 2.1 A / AA), in either theme', async () => {
    const { page } = s;
    await page.locator('[data-testid=span-row][aria-selected=true]').waitFor();
    const found: string[] = [];
    for (const theme of ['light', 'dark']) {
      if (theme === 'dark') await page.getByRole('button', { name: 'Dark' }).click();
      const r = await new AxeBuilder({ page })
        .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
        .analyze();
      for (const v of r.violations)
        if (v.impact === 'serious' || v.impact === 'critical')
          found.push(
            `${theme} ${v.id}: ${v.nodes
              .map((n) => n.target.join(' '))
              .slice(0, 3)
              .join(' | ')}`,
          );
    }
    expect(found).toEqual([]);
  }, 120_000);
});
