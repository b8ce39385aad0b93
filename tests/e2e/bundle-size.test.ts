import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleProblems, MAIN_CHUNK_BUDGET_GZIP, measureBundle } from '../../bench/bundle-size.ts';
import { buildOnce } from './harness.ts';

describe('what the built app ships (bench/bundle-size.ts rules on the e2e build)', () => {
  let dist = '';
  beforeAll(async () => {
    dist = await buildOnce();
  }, 600_000);

  it('the main chunk index.html loads, with the chunks it preloads, stays within its gzipped budget', () => {
    const report = measureBundle(dist);
    const html = readFileSync(join(dist, 'index.html'), 'utf8');
    const src = /src="\.\/assets\/([^"]+\.js)"/.exec(html)?.[1];
    expect(report.main.file).toBe(src);
    // Views loaded on first visit are chunks of their own; what the page loads at start is
    // the main chunk and its static imports, which index.html preloads.
    const preloaded = [...html.matchAll(/rel="modulepreload"[^>]*href="\.\/assets\/([^"]+\.js)"/g)].map(
      (m) => m[1],
    );
    expect(report.startup.map((c) => c.file).sort()).toEqual([src, ...preloaded].sort());
    const gz = [src!, ...preloaded]
      .map((f) => gzipSync(readFileSync(join(dist, 'assets', f)), { level: 9 }).length)
      .reduce((a, b) => a + b, 0);
    expect(report.startupGzip).toBe(gz);
    expect(gz).toBeLessThanOrEqual(MAIN_CHUNK_BUDGET_GZIP);
  });

  it('web-llm ships once (in the WebLLM worker) and full zod is not loaded at start', () => {
    const report = measureBundle(dist);
    expect(bundleProblems(report)).toEqual([]);
    const sources = (f: string): string[] =>
      JSON.parse(readFileSync(join(dist, 'assets', f), 'utf8')).sources ?? [];
    const withWebllm = readdirSync(join(dist, 'assets')).filter(
      (f) => f.endsWith('.js.map') && sources(f).some((s) => s.includes('node_modules/@mlc-ai/web-llm/')),
    );
    expect(withWebllm).toHaveLength(1);
    expect(withWebllm[0]).toMatch(/^webllm\.worker-/);
  });

  it("wink-lexicon's WordNet tables ship as data (JSON text, wn-words a word list), not as a statement per word (vite.config.ts)", () => {
    const assets = readdirSync(join(dist, 'assets'));
    const withTables = assets.filter(
      (f) =>
        f.endsWith('.js') &&
        assets.includes(`${f}.map`) &&
        readFileSync(join(dist, 'assets', `${f}.map`), 'utf8').includes('wink-lexicon/src/wn-words.js'),
    );
    expect(withTables.length).toBeGreaterThan(0);
    for (const f of withTables) {
      const code = readFileSync(join(dist, 'assets', f), 'utf8');
      // wn-words.js says `words.aardvark = 8;`; in a word list it is a line of one string (the
      // minifier may write the line breaks as they are, in a template literal).
      expect(code).not.toMatch(/\.aardvark\s*=\s*8\b/);
      expect(code).toMatch(/(?:\\n|\n)aardvark(?:\\n|\n)/);
      // The exception tables as JSON: wn-noun-exceptions.js says `exceptions.aardwolves = aardwolf;`.
      expect(code).toMatch(/\\?"aardwolves\\?":\\?"aardwolf\\?"/);
    }
  });

  it("opening a case loads no NLP library on the page's thread (the attributors run in the engine worker)", () => {
    const { chunks } = measureBundle(dist);
    const byFile = new Map(chunks.map((c) => [c.file, c]));
    const workspace = chunks.find((c) => c.file.startsWith('CaseWorkspace-'));
    expect(workspace).toBeDefined();
    // The chunk and every chunk it imports statically (what loads when a case is opened).
    const loaded = new Set<string>();
    const visit = (file: string) => {
      if (loaded.has(file)) return;
      loaded.add(file);
      const code = readFileSync(join(dist, 'assets', file), 'utf8');
      for (const m of code.matchAll(/(?:from|import)\s*["']\.\/([^"']+\.js)["']/g)) visit(m[1]);
    };
    visit(workspace!.file);
    expect(loaded.size).toBeGreaterThan(3);
    const nlp = [...loaded].filter((f) =>
      ['compromise', 'wink-lexicon', 'wink-lemmatizer'].some((p) => byFile.get(f)?.packages.has(p)),
    );
    expect(nlp).toEqual([]);
  });
});
