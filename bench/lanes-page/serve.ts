/**
 * Builds the lane-view harness with vite and serves it (plus the real smartcomment
 * files under /data/, read from ../shared/data at request time — never copied) on a
 * local port; launches Debian's Chromium headless. Node only: tests and benches.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve } from 'node:path';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { type Browser, chromium } from 'playwright-core';
import { build } from 'vite';

const ROOT = resolve(import.meta.dirname, '../..');
export const DATA_DIR = resolve(ROOT, '../shared/data/smartcomment');

export async function buildHarness(outDir = join(ROOT, 'bench/out/lanes-page')): Promise<string> {
  await build({
    root: import.meta.dirname,
    base: './',
    configFile: false,
    logLevel: 'warn',
    plugins: [svelte({ configFile: join(ROOT, 'svelte.config.js') })],
    build: { outDir, emptyOutDir: true, target: 'es2022', reportCompressedSize: false },
  });
  return outDir;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.map': 'application/json',
};

/** Serves `dir`, the shared smartcomment files under /data/, and `made` (files a test made) there too. */
export async function serve(
  dir: string,
  made: Record<string, Uint8Array> = {},
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const bytes =
      path.startsWith('/data/') && Object.hasOwn(made, path.slice(6)) ? made[path.slice(6)] : null;
    if (bytes) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(bytes);
      return;
    }
    const file = path.startsWith('/data/')
      ? join(DATA_DIR, normalize(path.slice(6)).replace(/^(\.\.[/\\])+/, ''))
      : join(dir, normalize(path === '/' ? '/index.html' : path).replace(/^(\.\.[/\\])+/, ''));
    if (!existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}
