import { readFileSync } from 'node:fs';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig, type Plugin } from 'vite';
import { ensureVectorFile } from './src/core/semantic/word-vectors.node.ts';
import { WORD_VECTORS_PATH } from './workers/api.ts';

/**
 * The evidence-flow matcher's word vectors (workers/matcher.ts fetches them): built once from
 * the npm package into node_modules/.cache, served by the dev server and emitted by the build
 * at `WORD_VECTORS_PATH`, so the static app carries them and works offline.
 */
function wordVectors(): Plugin {
  const bytes = () => readFileSync(ensureVectorFile(undefined, (line) => console.log(line)));
  return {
    name: 'memtrace-word-vectors',
    configureServer(server) {
      server.middlewares.use(`/${WORD_VECTORS_PATH}`, (_req, res) => {
        res.setHeader('content-type', 'application/octet-stream');
        res.end(bytes());
      });
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: WORD_VECTORS_PATH, source: bytes() });
    },
  };
}

// A static single-page app: `vite build` writes dist/, deployable on any static host.
export default defineConfig({
  plugins: [svelte(), wordVectors()],
  base: './',
  worker: { format: 'es' },
  build: { target: 'es2022', sourcemap: true },
  server: { fs: { allow: ['.', '../shared'] } },
});
