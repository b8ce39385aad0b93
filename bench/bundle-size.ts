/**
 * What the built app ships: every JavaScript chunk with its size and gzipped size, the
 * packages in it (from its source map), and the rules the build must keep — what index.html
 * loads at start (the main chunk and the chunks it imports statically, which index.html
 * preloads; views loaded on first visit are not counted) within its gzipped budget,
 * `@mlc-ai/web-llm` in one chunk only (the WebLLM worker), full zod not loaded at start.
 * `npx tsx bench/bundle-size.ts [--dist DIR]` builds the app into a temp folder (or
 * measures DIR), writes the `Bundle size` section of RESULTS.md and exits 1 when a rule
 * is broken. tests/e2e/bundle-size.test.ts checks the same rules on the e2e build.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { writeResultsSection } from './stats-util.ts';

/** Gzipped bytes the main chunk and its static imports (what the page loads at start) may take. */
export const MAIN_CHUNK_BUDGET_GZIP = 150 * 1024;

interface Chunk {
  file: string;
  bytes: number;
  gzip: number;
  /** npm packages with code in the chunk (`@scope/name`), from its source map. */
  packages: Set<string>;
}

interface BundleReport {
  chunks: Chunk[];
  /** The chunk index.html loads. */
  main: Chunk;
  /** The main chunk and the chunks index.html preloads for it (its static imports). */
  startup: Chunk[];
  /** Gzipped bytes of `startup`. */
  startupGzip: number;
}

function packagesOf(mapFile: string): Set<string> {
  const out = new Set<string>();
  let map: { sources?: string[]; sourceRoot?: string };
  try {
    map = JSON.parse(readFileSync(mapFile, 'utf8'));
  } catch {
    return out; // no map: no package list
  }
  for (const s of map.sources ?? []) {
    // Sources are relative to the map (a build inside node_modules/ has no "node_modules" in them).
    const path = resolve(dirname(mapFile), map.sourceRoot ?? '', s)
      .split(sep)
      .join('/');
    const m = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(path);
    if (!m || m[1].startsWith('.')) continue; // `.cache/…` is a folder, not a package
    // Full zod and its mini build share the package: tell them apart.
    if (m[1] === 'zod' && m[2].includes('/classic/')) out.add('zod (full)');
    else if (m[1] === 'zod' && m[2].includes('/mini/')) out.add('zod (mini)');
    else out.add(m[1]);
  }
  return out;
}

/** Measures a built app folder (vite's `dist`). */
export function measureBundle(dist: string): BundleReport {
  const assets = join(dist, 'assets');
  const chunks = readdirSync(assets)
    .filter((f) => /\.m?js$/.test(f))
    .map((f): Chunk => {
      const bytes = readFileSync(join(assets, f));
      return {
        file: f,
        bytes: bytes.length,
        gzip: gzipSync(bytes, { level: 9 }).length,
        packages: packagesOf(join(assets, `${f}.map`)),
      };
    })
    .sort((a, b) => b.gzip - a.gzip);
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const entry = /<script[^>]*type="module"[^>]*src="[^"]*\/assets\/([^"]+\.js)"/.exec(html)?.[1];
  const main = chunks.find((c) => c.file === entry);
  if (!main) throw new Error(`${join(dist, 'index.html')}: no module script naming a chunk in assets/`);
  const preloaded = new Set(
    [...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="[^"]*\/assets\/([^"]+\.js)"/g)].map(
      (m) => m[1],
    ),
  );
  const startup = [main, ...chunks.filter((c) => c !== main && preloaded.has(c.file))];
  return { chunks, main, startup, startupGzip: startup.reduce((n, c) => n + c.gzip, 0) };
}

/** The rules the build breaks, in words (empty when all hold). */
export function bundleProblems(r: BundleReport): string[] {
  const problems: string[] = [];
  if (r.startupGzip > MAIN_CHUNK_BUDGET_GZIP)
    problems.push(
      `main chunk ${r.main.file} with its ${r.startup.length - 1} static import(s) is ${kib(r.startupGzip)} KiB gzipped, over its ${kib(MAIN_CHUNK_BUDGET_GZIP)} KiB budget`,
    );
  const webllm = r.chunks.filter((c) => c.packages.has('@mlc-ai/web-llm'));
  if (webllm.length !== 1 || !webllm[0].file.startsWith('webllm.worker'))
    problems.push(
      `@mlc-ai/web-llm must ship once, in the WebLLM worker; it is in: ${webllm.map((c) => c.file).join(', ') || 'no chunk'}`,
    );
  for (const c of r.startup.filter((x) => x.packages.has('zod (full)')))
    problems.push(`full zod is loaded at start, in ${c === r.main ? 'the main chunk ' : ''}${c.file}`);
  return problems;
}

const kib = (n: number) => (n / 1024).toFixed(1);

function table(r: BundleReport): string {
  const rows = r.chunks.map((c) => {
    const name = c.file.replace(/-[\w-]{8}\.(m?js)$/, '.$1');
    const big = [...c.packages]
      .filter((p) => p !== 'zod' || ![...c.packages].some((q) => q.startsWith('zod (')))
      .slice(0, 6);
    const pk = big.length ? big.join(', ') + (c.packages.size > big.length ? ', …' : '') : '—';
    const role = c === r.main ? ' (main)' : r.startup.includes(c) ? ' (at start)' : '';
    return `| ${name}${role} | ${kib(c.bytes)} | ${kib(c.gzip)} | ${pk} |`;
  });
  return ['| chunk | KiB | gzip KiB | packages |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

async function buildApp(outDir: string) {
  const { build } = await import('vite');
  await build({ logLevel: 'warn', build: { outDir, emptyOutDir: true } });
}

if (process.argv[1]?.endsWith('bundle-size.ts')) {
  const { values } = parseArgs({ options: { dist: { type: 'string' } } });
  let dist = values.dist;
  let tmp: string | undefined;
  if (!dist) {
    tmp = mkdtempSync(join(tmpdir(), 'memtrace-bundle-'));
    dist = join(tmp, 'dist');
    await buildApp(dist);
  }
  const report = measureBundle(dist);
  const problems = bundleProblems(report);
  const body = [
    `\`npx tsx bench/bundle-size.ts\` — \`vite build\` of the app, every JavaScript chunk (the wasm files of onnxruntime-web are left out), gzip level 9, packages from each chunk's source map.`,
    '',
    table(report),
    '',
    `Loaded at start: the main chunk (${basename(report.main.file)}, ${kib(report.main.gzip)} KiB) and its ${report.startup.length - 1} static import(s), ${kib(report.startupGzip)} KiB gzipped in all; budget ${kib(MAIN_CHUNK_BUDGET_GZIP)} KiB (enforced by this script and tests/e2e/bundle-size.test.ts). ` +
      `Rules: ${problems.length ? `BROKEN — ${problems.join('; ')}` : 'all hold (web-llm only in the WebLLM worker, no full zod loaded at start)'}.`,
    `Measured on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}.`,
  ].join('\n');
  console.log(body);
  writeResultsSection('Bundle size', body);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  if (problems.length) process.exitCode = 1;
}
