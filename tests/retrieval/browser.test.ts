/**
 * The tiny real model (scripts/make-tiny-model.ts) gives the same vectors through
 * transformers.js in Node (onnxruntime-node) and in a Chromium worker (onnxruntime-web
 * wasm, files served by the app, no network), and the real embedder worker embeds, and ranked retrieval builds,
 * persists (IndexedDB) and searches an index like Node does.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTinyModel, TINY_NAME } from '../../scripts/make-tiny-model.ts';
import { openTrace } from '../../src/core/graph/index.ts';
import {
  corpusFromGraph,
  HashedNgramEmbedder,
  RetrievalIndex,
  TransformersEmbedder,
} from '../../src/core/retrieval/index.ts';
import { nodeModelDir } from '../../src/core/retrieval/transformers.node.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { type StaticServer, serveStatic } from '../helpers/static-server.ts';

const TRACE = new URL('../../../shared/data/smartcomment/conv-26-fault-3.json', import.meta.url);
const TEXTS = [
  'When did Caroline go to the LGBTQ support group?',
  'Melanie painted a sunrise in 2022.',
  'zzqx unknown wordpieces !!',
  '',
];

let tmp: string;
let server: StaticServer;
let browser: Browser;
let base: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'memtrace-retrieval-'));
  await makeTinyModel(join(tmp, 'models', TINY_NAME));
  await build({
    configFile: false,
    logLevel: 'error',
    root: new URL('./browser', import.meta.url).pathname,
    base: './',
    worker: { format: 'es' },
    build: { outDir: join(tmp, 'app'), emptyOutDir: true, target: 'es2022', minify: false },
  });
  // The built app at /, the model at /models/; anything else is 404 (no network).
  server = await serveStatic({ '/': join(tmp, 'app'), '/models/': join(tmp, 'models') });
  base = server.url.replace(/\/$/, '');
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

async function page() {
  const p = await browser.newPage();
  const errors: string[] = [];
  p.on('pageerror', (e) => errors.push(String(e)));
  // Every request must stay on the test server.
  const outside: string[] = [];
  p.on('request', (r) => {
    if (!r.url().startsWith(base) && !r.url().startsWith('blob:') && !r.url().startsWith('data:'))
      outside.push(r.url());
  });
  await p.goto(`${base}/index.html`);
  await p.waitForFunction(() => (window as unknown as { memtraceReady?: boolean }).memtraceReady === true);
  return { p, errors, outside };
}

describe('retrieval in a Chromium worker', () => {
  it('tiny model: same vectors in Node and in the browser worker', async () => {
    const node = await TransformersEmbedder.load({ location: nodeModelDir(join(tmp, 'models', TINY_NAME)) });
    const expected = Array.from(await node.embed(TEXTS));
    await node.dispose();
    expect(node.dims).toBe(32);

    const { p, errors, outside } = await page();
    const got = await p.evaluate(
      ([b, name, texts]) =>
        (
          window as unknown as {
            memtraceTest: {
              embedServed(
                b: string,
                n: string,
                t: string[],
              ): Promise<{ info: { kind: string; device?: string; dims: number }; vectors: number[] }>;
            };
          }
        ).memtraceTest.embedServed(b, name, texts),
      [`${base}/models`, TINY_NAME, TEXTS] as const,
    );
    await p.close();
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
    expect(got.info.kind).toBe('transformers');
    expect(got.info.device).toBe('wasm'); // --disable-gpu: no WebGPU adapter
    expect(got.vectors).toHaveLength(TEXTS.length * 32);
    expect(got.vectors).toEqual(expected);
    // Not trivially zero: normalised rows for the non-empty texts.
    const norm = Math.hypot(...expected.slice(0, 32));
    expect(norm).toBeCloseTo(1, 5);
  }, 120_000);

  it('the worker builds, persists and searches an index like Node does', async () => {
    const text = await readFile(TRACE, 'utf8');
    const query = 'When did Caroline go to the LGBTQ support group?\n7 May 2023';
    const r = openTrace(text, { file: 'conv-26-fault-3.json' });
    if (!r.ok) throw new Error('fixture did not load');
    const embedder = new HashedNgramEmbedder();
    const ix = await RetrievalIndex.build(corpusFromGraph(r.graph, 'messages'), { embedder });
    const expected = (await ix.search(query, { method: 'hybrid', k: 5, embedder })).map((h) => [
      h.full_node_id,
      h.score,
    ]);

    const { p, errors } = await page();
    const got = await p.evaluate(
      ([t, q]) =>
        (
          window as unknown as {
            memtraceTest: {
              searchTrace(
                t: string,
                n: string,
                q: string,
              ): Promise<{
                first: { fromStore: boolean; docs: number };
                second: { fromStore: boolean };
                hits: [string, number][];
              }>;
            };
          }
        ).memtraceTest.searchTrace(t, 'conv-26-fault-3.json', q),
      [text, query] as const,
    );
    await p.close();
    expect(errors).toEqual([]);
    expect(got.first.fromStore).toBe(false);
    expect(got.second.fromStore).toBe(true);
    expect(got.first.docs).toBe(76);
    expect(got.hits).toEqual(expected);
    expect(got.hits[0][0]).toBe('conv-26:D1:3@1');
  }, 120_000);
});
