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
 * True when the bundle exists and no file that the code a run of `command` loads was built
 * from (nor this builder, nor the installed packages) changed since: the entry's own sources
 * always, a command's only when it runs (`--help` checks a dozen files, `validate` about sixty),
 * every command's when `command` is not given. One stat per file, no more: a file changed
 * under a command that is not run is caught when that command runs.
 */
export function isFresh(root = ROOT, command = undefined) {
  const { bundle, inputs } = bundlePaths(root);
  let built;
  let list;
  try {
    built = statSync(bundle).mtimeMs;
    list = JSON.parse(readFileSync(inputs, 'utf8'));
  } catch {
    return false;
  }
  if (!Array.isArray(list?.always) || typeof list.commands !== 'object') return false;
  const files = command === undefined ? Object.values(list.commands).flat() : (list.commands[command] ?? []);
  for (const file of new Set([...list.always, ...files])) if (mtime(join(root, file)) > built) return false;
  return true;
}

/**
 * npm rewrites `node_modules/.package-lock.json` on every install, update or removal: one
 * stat of it stands for the hundreds of package files a bundle inlines (package-lock.json
 * where npm's hidden record is missing).
 */
function packagesManifest(root) {
  const hidden = 'node_modules/.package-lock.json';
  return mtime(join(root, hidden)) === Number.POSITIVE_INFINITY ? 'package-lock.json' : hidden;
}

const isPackage = (f) => f.split(/[\\/]/).includes('node_modules');

/** The project sources of the outputs reachable from `start` (static imports; dynamic ones too if `dynamic`). */
function sourcesFrom(outputs, start, dynamic) {
  const seen = new Set();
  const sources = new Set();
  const visit = (path) => {
    if (seen.has(path) || !outputs[path]) return;
    seen.add(path);
    for (const f of Object.keys(outputs[path].inputs)) if (!isPackage(f)) sources.add(f);
    for (const i of outputs[path].imports)
      if (i.kind === 'import-statement' || (dynamic && i.kind === 'dynamic-import')) visit(i.path);
  };
  visit(start);
  return sources;
}

/**
 * What makes a bundle stale, from esbuild's metafile: `always`, the entry's own sources (what
 * `--help` loads), this builder and the packages' manifest; `commands`, by command module name
 * (`src/cli/commands/NAME.ts`), the other sources its run may load, lazy imports included.
 */
function staleness(root, metafile) {
  const outputs = metafile.outputs;
  const entry = Object.keys(outputs).find((o) => outputs[o].entryPoint === ENTRY);
  const always = sourcesFrom(outputs, entry, false);
  const commands = {};
  for (const [path, o] of Object.entries(outputs)) {
    const name = /^src\/cli\/commands\/([\w-]+)\.ts$/.exec(o.entryPoint ?? '')?.[1];
    if (name) commands[name] = [...sourcesFrom(outputs, path, true)].filter((f) => !always.has(f)).sort();
  }
  const packages = Object.keys(metafile.inputs).some(isPackage) ? [packagesManifest(root)] : [];
  return { always: [...always, SELF, ...packages].sort(), commands };
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
  const chunks = readdirSync(out).filter((f) => f !== 'memtrace.mjs');
  for (const c of chunks) renameSync(join(out, c), join(dir, c));
  writeFileSync(inputs + tmp, JSON.stringify(staleness(root, result.metafile)));
  renameSync(inputs + tmp, inputs);
  renameSync(join(out, 'memtrace.mjs'), bundle);
  rmSync(out, { recursive: true, force: true });
  const now = Date.now();
  for (const f of readdirSync(dir))
    if (f.startsWith('chunk-') && !chunks.includes(f) && now - mtime(join(dir, f)) > STALE_CHUNK_MS)
      rmSync(join(dir, f), { force: true });
  return bundle;
}

/** The bundle's path, built first when missing or stale for `command` (as isFresh); null when it cannot be built. */
export async function currentBundle(root = ROOT, command = undefined) {
  if (isFresh(root, command)) return bundlePaths(root).bundle;
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
