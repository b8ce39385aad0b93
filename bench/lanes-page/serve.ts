/**
 * Builds the lane-view harness with vite and serves it (plus trace files under /data/: the
 * real smartcomment files, read from ../shared/data at request time — never copied — or
 * another folder) on a local port. Node only: tests and benches.
 */
import { join, resolve } from 'node:path';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { build } from 'vite';
import { type StaticServer, serveStatic } from '../../tests/helpers/static-server.ts';

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

/**
 * The harness at `/`, the trace files of `dataDir` (the shared smartcomment files by default) at
 * `/data/`, and any `more` mounts (e.g. `{ '/data/made/': dirOfFilesATestWrote }`).
 */
export function serve(
  dir: string,
  dataDir = DATA_DIR,
  more: Record<string, string> = {},
): Promise<StaticServer> {
  return serveStatic({ '/': dir, '/data/': dataDir, ...more });
}
