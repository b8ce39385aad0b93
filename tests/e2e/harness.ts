/**
 * End-to-end harness: builds the app once (shared by test files through a lock and a
 * source stamp), serves it (tests/helpers/static-server.ts), and drives Debian's Chromium.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromiumProfile } from '../helpers/chromium.ts';
import { serveStatic } from '../helpers/static-server.ts';

export const ROOT = resolve(import.meta.dirname, '../..');
export const DATA = resolve(ROOT, '../shared/data/smartcomment');
export const SIX = readdirSync(DATA)
  .filter((f) => f.endsWith('.json'))
  .sort();
// One build folder per checkout: worktrees share node_modules (a symlink), and must not rebuild each other's app.
const OUT = join(
  ROOT,
  'node_modules/.cache/memtrace-e2e',
  createHash('sha1').update(ROOT).digest('hex').slice(0, 10),
);
const DIST = join(OUT, 'dist');

function sourceStamp(): string {
  const h = createHash('sha1');
  const walk = (p: string) => {
    if (!existsSync(p)) return;
    const s = statSync(p);
    if (s.isDirectory()) for (const e of readdirSync(p).sort()) walk(join(p, e));
    else h.update(`${p}:${s.size}:${s.mtimeMs}\n`);
  };
  for (const p of [
    'src/app',
    'src/core',
    'src/db',
    'src/sdk',
    'src/systems',
    'workers',
    'public',
    'index.html',
    'vite.config.ts',
  ])
    walk(join(ROOT, p));
  return h.digest('hex');
}

async function sleep(ms: number) {
  await new Promise((r) => setTimeout(r, ms));
}

/** Builds the app into node_modules/.cache/memtrace-e2e/dist unless an up-to-date build is there. */
export async function buildOnce(): Promise<string> {
  mkdirSync(OUT, { recursive: true });
  const lock = join(OUT, 'lock');
  for (let i = 0; ; i++) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Another test file is building; a lock older than 3 minutes is stale.
      if (i > 1800 || Date.now() - statSync(lock).mtimeMs > 180_000)
        rmSync(lock, { recursive: true, force: true });
      await sleep(100);
    }
  }
  try {
    const stamp = sourceStamp();
    const stampFile = join(OUT, 'stamp');
    if (
      existsSync(stampFile) &&
      readFileSync(stampFile, 'utf8') === stamp &&
      existsSync(join(DIST, 'index.html'))
    )
      return DIST;
    const { build } = await import('vite');
    await build({
      root: ROOT,
      configFile: join(ROOT, 'vite.config.ts'),
      logLevel: 'warn',
      // The shipped config (source maps on): tests/e2e/bundle-size.test.ts reads the maps.
      build: { outDir: DIST, emptyOutDir: true },
    });
    writeFileSync(stampFile, stamp);
    return DIST;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Adds an OpenAI-compatible provider in the settings (base URL, model, and the key when given). */
export async function addProvider(
  s: Session,
  p: { base: string; model: string; key?: string },
): Promise<void> {
  await s.page.goto(`${s.url}#/settings`);
  const settings = s.page.getByTestId('settings');
  await settings.getByRole('button', { name: 'Add provider' }).click();
  await settings.getByLabel('Base URL').fill(p.base);
  await settings.getByLabel('Base URL').press('Enter');
  await settings.getByLabel('Model', { exact: true }).fill(p.model);
  await settings.getByLabel('Model', { exact: true }).press('Enter');
  if (p.key === undefined) return;
  await settings.getByLabel('API key').fill(p.key);
  await settings.getByLabel('API key').press('Enter');
}

/** Imports trace files through the file input and waits until the trace list shows `rows` rows. */
export async function importTraces(
  page: Page,
  paths: string[],
  rows = paths.length,
  timeout = 60_000,
): Promise<void> {
  await page.setInputFiles('[data-testid=file-input]', paths);
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=trace-row]').length === n, rows, {
    timeout,
  });
}

/**
 * Drops a file on the page as a person would: a real `drop` event whose DataTransfer holds
 * a File made in the page from `bytes`. Says whether the page took the drag-over and the
 * drop (so the browser does not open the file instead) and the size the page saw.
 */
export function dropFile(
  page: Page,
  bytes: Buffer,
  name: string,
): Promise<{ overTaken: boolean; dropTaken: boolean; size: number }> {
  return page.evaluate(
    ({ b64, name }) => {
      const raw = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([raw], name, { type: 'application/json' }));
      const at = { bubbles: true, cancelable: true, dataTransfer: dt, clientX: 400, clientY: 300 };
      document.body.dispatchEvent(new DragEvent('dragenter', at));
      const over = new DragEvent('dragover', at);
      document.body.dispatchEvent(over);
      const drop = new DragEvent('drop', at);
      document.body.dispatchEvent(drop);
      return { overTaken: over.defaultPrevented, dropTaken: drop.defaultPrevented, size: raw.length };
    },
    { b64: bytes.toString('base64'), name },
  );
}

/**
 * Presses the Cancel button `cancel` (a test id) from inside the page the moment the text of
 * `progress` (a test id) matches `pattern` (a regex source) — as a person would, with no
 * round trip to the test between the progress shown and the click.
 */
export async function cancelWhen(
  page: Page,
  progress: string,
  pattern: string,
  cancel: string,
): Promise<void> {
  await page.evaluate(
    ([progress, pattern, cancel]) => {
      const obs = new MutationObserver(() => {
        const shown = document.querySelector(`[data-testid=${progress}]`)?.textContent ?? '';
        const button = document.querySelector<HTMLButtonElement>(`[data-testid=${cancel}]`);
        if (new RegExp(pattern).test(shown.trim()) && button) {
          obs.disconnect();
          button.click();
        }
      });
      obs.observe(document.body, { subtree: true, childList: true, characterData: true });
    },
    [progress, pattern, cancel],
  );
}

export interface Session {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  url: string;
  errors: string[];
  close(): Promise<void>;
}

/**
 * A fresh Chromium profile on the built app. The demo trace the app preloads on a
 * fresh profile is answered 404 (an empty store to start from) unless `demo` is set; `demoBody`
 * serves that text as the demo instead. `dist`: serve
 * another build (a benchmark's "before") instead of this tree's. `url`: open the app another server
 * serves (`memtrace serve`) instead of a static server.
 */
export async function openApp(
  options: { demo?: boolean; demoBody?: string; bypassCSP?: boolean; dist?: string; url?: string } = {},
): Promise<Session> {
  const server = options.url ? null : await serveStatic({ '/': options.dist ?? (await buildOnce()) });
  const url = options.url ?? server!.url;
  const userDataDir = mkdtempSync(join(tmpdir(), 'memtrace-e2e-'));
  const context = await launchChromiumProfile(userDataDir, {
    viewport: { width: 1440, height: 900 },
    // Tools that inject scripts (axe-core) need it: the built app sends a CSP.
    bypassCSP: options.bypassCSP ?? false,
    acceptDownloads: true,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`${String(e)}\n${e.stack ?? ''}`));
  page.on('dialog', (d) => void d.accept());
  if (options.demoBody !== undefined)
    await context.route('**/demo/demo-trace.json', (r) =>
      r.fulfill({ status: 200, contentType: 'application/json', body: options.demoBody }),
    );
  else if (!options.demo)
    await context.route('**/demo/demo-trace.json', (r) =>
      r.fulfill({ status: 404, body: 'no demo in this test' }),
    );
  await page.goto(url);
  return {
    browser: context.browser() as Browser,
    context,
    page,
    url,
    errors,
    async close() {
      await context.close();
      await server?.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
