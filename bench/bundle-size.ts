/**
 * What the built app ships: every JavaScript chunk with its size and gzipped size, the
 * packages in it (from its source map), and the rules the build must keep — the main
 * chunk (the one index.html loads) within its gzipped budget, `@mlc-ai/web-llm` in one
 * chunk only (the WebLLM worker), full zod not in the main chunk.
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

/** Gzipped bytes the main chunk may take. */
export const MAIN_CHUNK_BUDGET_GZIP = 150 * 1024;

export interface Chunk {
  file: string;
  bytes: number;
  gzip: number;
  /** npm packages with code in the chunk (`@scope/name`), from its source map. */
  packages: Set<string>;
}

export interface BundleReport {
  chunks: Chunk[];
  /** The chunk index.html loads. */
  main: Chunk;
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
  return { chunks, main };
}

/** The rules the build breaks, in words (empty when all hold). */
export function bundleProblems(r: BundleReport): string[] {
  const problems: string[] = [];
  if (r.main.gzip > MAIN_CHUNK_BUDGET_GZIP)
    problems.push(
      `main chunk ${r.main.file} is ${kib(r.main.gzip)} KiB gzipped, over its ${kib(MAIN_CHUNK_BUDGET_GZIP)} KiB budget`,
    );
  const webllm = r.chunks.filter((c) => c.packages.has('@mlc-ai/web-llm'));
  if (webllm.length !== 1 || !webllm[0].file.startsWith('webllm.worker'))
    problems.push(
      `@mlc-ai/web-llm must ship once, in the WebLLM worker; it is in: ${webllm.map((c) => c.file).join(', ') || 'no chunk'}`,
    );
  if (r.main.packages.has('zod (full)')) problems.push(`full zod is in the main chunk ${r.main.file}`);
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
    return `| ${name}${c === r.main ? ' (main)' : ''} | ${kib(c.bytes)} | ${kib(c.gzip)} | ${pk} |`;
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
    `Main chunk (${basename(report.main.file)}): ${kib(report.main.gzip)} KiB gzipped; budget ${kib(MAIN_CHUNK_BUDGET_GZIP)} KiB (enforced by this script and tests/e2e/bundle-size.test.ts). ` +
      `Rules: ${problems.length ? `BROKEN — ${problems.join('; ')}` : 'all hold (web-llm only in the WebLLM worker, no full zod in the main chunk)'}.`,
    `Measured on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}.`,
  ].join('\n');
  console.log(body);
  writeResultsSection('Bundle size', body);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  if (problems.length) process.exitCode = 1;
}
