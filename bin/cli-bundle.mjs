/**
 * The `memtrace` CLI as a JavaScript bundle (esbuild), so a run starts in plain Node
 * instead of compiling TypeScript through tsx first. An entry file and chunks (code
 * splitting: what a command imports dynamically — the attribution engines, the NLP
 * libraries — is compiled only when that command runs, so `--help` and `stats` stay
 * small) live in `.cache/cli/` (ignored by git) next to the list of source files they were built from;
 * it is rebuilt when missing or older than any of them, so a fresh clone and an edited
 * tree both get a current CLI without a separate build step.
 *
 * `node bin/cli-bundle.mjs` builds it (`npm run build:cli`).
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const ENTRY = 'src/cli/main.ts';
const SELF = 'bin/cli-bundle.mjs';
const EXTERNAL = ['@huggingface/transformers', 'onnxruntime-node', 'better-sqlite3', 'mem0ai'];

/** Where the bundle and its input list are kept under `root`. */
export function bundlePaths(root = ROOT) {
  const dir = join(root, '.cache', 'cli');
  return { dir, bundle: join(dir, 'memtrace.mjs'), inputs: join(dir, 'inputs.json') };
}

const mtime = (path) => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY; // a missing input counts as changed
  }
};

/**
 * True when the bundle exists and no file it was built from (nor this builder) changed
 * since. Costs one stat per input (a few milliseconds).
 */
export function isFresh(root = ROOT) {
  const { bundle, inputs } = bundlePaths(root);
  let built;
  let list;
  try {
    built = statSync(bundle).mtimeMs;
    list = JSON.parse(readFileSync(inputs, 'utf8'));
  } catch {
    return false;
  }
  if (!Array.isArray(list)) return false;
  for (const file of list) if (mtime(join(root, file)) > built) return false;
  return true;
}

/** Chunks no current entry names and older than this are removed (a running CLI may still load older ones). */
const STALE_CHUNK_MS = 24 * 3600 * 1000;

/**
 * Builds the bundle into a temporary folder, then moves the chunks (content-hashed names)
 * and last the entry into place, so concurrent runs never see half a build.
 */
export async function buildBundle(root = ROOT) {
  const { build } = await import('esbuild');
  const { dir, bundle, inputs } = bundlePaths(root);
  mkdirSync(dir, { recursive: true });
  const tmp = `.${process.pid}.${Date.now()}.tmp`;
  const out = join(dir, tmp);
  const result = await build({
    absWorkingDir: root,
    entryPoints: { memtrace: ENTRY },
    outdir: out,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunk-[hash]',
    splitting: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Pure-JS packages are bundled too (one module to load instead of dozens); packages
    // with native parts or their own lazy loading stay in node_modules.
    external: EXTERNAL,
    metafile: true,
    logLevel: 'silent',
    legalComments: 'none',
    // CommonJS packages inside the ESM bundle call require('util') and the like: give them one.
    banner: {
      js: [
        '// Built by bin/cli-bundle.mjs from src/cli; do not edit.',
        "import { createRequire as __memtraceRequire } from 'node:module';",
        'const require = __memtraceRequire(import.meta.url);',
      ].join('\n'),
    },
  });
  const files = [...Object.keys(result.metafile.inputs), SELF];
  const chunks = readdirSync(out).filter((f) => f !== 'memtrace.mjs');
  for (const c of chunks) renameSync(join(out, c), join(dir, c));
  writeFileSync(inputs + tmp, JSON.stringify(files));
  renameSync(inputs + tmp, inputs);
  renameSync(join(out, 'memtrace.mjs'), bundle);
  rmSync(out, { recursive: true, force: true });
  const now = Date.now();
  for (const f of readdirSync(dir))
    if (f.startsWith('chunk-') && !chunks.includes(f) && now - mtime(join(dir, f)) > STALE_CHUNK_MS)
      rmSync(join(dir, f), { force: true });
  return bundle;
}

/** The bundle's path, built first when missing or stale; null when it cannot be built. */
export async function currentBundle(root = ROOT) {
  if (isFresh(root)) return bundlePaths(root).bundle;
  try {
    return await buildBundle(root);
  } catch {
    return null;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = await buildBundle();
  console.log(`built ${out}`);
}
