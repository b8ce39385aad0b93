import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig, type Plugin } from 'vite';
import { tableModule, WINK_TABLES } from './src/core/nlp/wink-tables.node.ts';
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

/** wink-lexicon's WordNet tables as JSON (src/core/nlp/wink-tables.node.ts): the engine worker starts sooner. */
function winkTablesAsJson(): Plugin {
  return {
    name: 'memtrace-wink-tables',
    apply: 'build',
    transform(_code, id) {
      if (!WINK_TABLES.test(id)) return null;
      const code = tableModule(createRequire(import.meta.url)(id));
      return code === null ? null : { code, map: null };
    },
  };
}

// A static single-page app: `vite build` writes dist/, deployable on any static host.
export default defineConfig({
  plugins: [svelte(), wordVectors(), winkTablesAsJson()],
  base: './',
  worker: { format: 'es', plugins: () => [winkTablesAsJson()] },
  build: { target: 'es2022', sourcemap: true },
  server: { fs: { allow: ['.', '../shared'] } },
});
