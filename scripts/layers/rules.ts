/**
 * The layer rules of docs/architecture.md ("How the code is laid out") as data. The
 * checker (`./check.ts`) applies them to the real import graph; each rule has a stable
 * id that its messages name.
 */

/** A top-level part of the tree. A file belongs to the first layer whose folder holds it. */
export type Layer =
  | 'core'
  | 'sdk'
  | 'systems'
  | 'db'
  | 'workers'
  | 'app'
  | 'cli'
  | 'bin'
  | 'bench'
  | 'scripts'
  | 'tests';

const LAYER_FOLDERS: readonly (readonly [folder: string, layer: Layer])[] = [
  ['src/core/', 'core'],
  ['src/sdk/', 'sdk'],
  ['src/systems/', 'systems'],
  ['src/db/', 'db'],
  ['src/app/', 'app'],
  ['src/cli/', 'cli'],
  ['workers/', 'workers'],
  ['bin/', 'bin'],
  ['bench/', 'bench'],
  ['scripts/', 'scripts'],
  ['tests/', 'tests'],
];

/** The layers each layer may import besides itself (dependencies point down). */
export const MAY_IMPORT: Readonly<Record<Layer, readonly Layer[]>> = {
  core: [],
  sdk: ['core'],
  systems: ['core', 'sdk'],
  db: ['core'],
  workers: ['core', 'sdk', 'systems', 'db'],
  // The UI reaches workers only through their entry modules (WORKER_ENTRY_MODULES).
  app: ['core', 'db', 'workers'],
  cli: ['core', 'sdk', 'systems'],
  bin: ['cli'],
  bench: ['core', 'sdk', 'systems', 'db', 'workers', 'app', 'cli', 'bin', 'tests'],
  // Scripts that generate benchmark data record their section of bench/RESULTS.md (bench/stats-util.ts).
  scripts: ['core', 'sdk', 'systems', 'cli', 'bench'],
  tests: ['core', 'sdk', 'systems', 'db', 'workers', 'app', 'cli', 'bin', 'bench', 'scripts'],
};

/**
 * Layers whose code runs in browsers and workers: no Node built-ins or Node-only packages,
 * except in a file named `*.node.ts` (a Node-only adapter), which only Node code may import.
 */
export const BROWSER_LAYERS: ReadonlySet<Layer> = new Set(['core', 'sdk', 'systems', 'db', 'workers', 'app']);

/** The layers shipped to people (the app and the CLI): their import graph must be checkable. */
export const SHIPPED_LAYERS: ReadonlySet<Layer> = new Set([...BROWSER_LAYERS, 'cli']);

/** Layers that must not touch the host's globals (time, environment, page) directly. */
export const PURE_LAYERS: ReadonlySet<Layer> = new Set(['core']);

/** Globals a pure layer must take as parameters instead (`self.x` / `globalThis.x` included). */
export const HOST_GLOBALS: ReadonlySet<string> = new Set(['process', 'navigator', 'document', 'window']);

/**
 * The one core module that reads the host clock: the real clock, the default `now` / sleep of
 * the LLM adapters (which do IO anyway); everything else in core takes `now` as a parameter.
 */
export const CLOCK_ADAPTERS: ReadonlySet<string> = new Set(['src/core/llm/clock.ts']);

/** Packages that run only in Node, or are build and test tools: never in browser layers. */
export const NODE_ONLY_PACKAGES: ReadonlySet<string> = new Set([
  'better-sqlite3',
  'mem0ai',
  'onnxruntime-node',
  'playwright-core',
  'onnx-proto',
  'fake-indexeddb',
  'tsx',
  'typescript',
  'esbuild',
  'vite',
  'vitest',
  'svelte-check',
  '@sveltejs/vite-plugin-svelte',
  '@biomejs/biome',
]);

/** UI, storage and worker-plumbing packages per layer that must not use them. */
export const FORBIDDEN_PACKAGES: Readonly<Partial<Record<Layer, readonly string[]>>> = {
  core: ['svelte', 'dexie', 'comlink', 'd3', 'flexsearch'],
  sdk: ['svelte', 'dexie', 'comlink', 'd3'],
  systems: ['svelte', 'dexie', 'comlink', 'd3'],
  db: ['svelte', 'comlink', 'd3'],
  workers: ['svelte', 'd3'],
};

/** The modules of workers/ that the UI may import: the typed APIs (type-only from a `*.worker.ts`). */
export const WORKER_ENTRY_MODULES: ReadonlySet<string> = new Set(['workers/api.ts']);

/**
 * The tables of the workbench database (`MemtraceDb` of src/db/schema.ts; a test keeps them equal
 * to its `RECORD_VERSIONS`): a Dexie write call through one of them is a database write.
 */
export const DB_TABLES: ReadonlySet<string> = new Set([
  'traces',
  'blobs',
  'cases',
  'runs',
  'labels',
  'indexes',
  'settings',
]);

/** The tables a write to counts: the workbench database's and the LLM response cache's (`entries`, src/db/llm-cache.ts). */
export const DB_WRITE_TABLES: ReadonlySet<string> = new Set([...DB_TABLES, 'entries']);

/** The database's one writer: the engine worker's entry. Only code that nothing else starts may write. */
export const DB_WRITER_ENTRY = 'workers/engine.worker.ts';

/** The function that opens the database (it runs the upgrades, so opening counts as writing). */
export const DB_OPEN = 'openDb';

/** Files that open the database only to read it: the page's connection (its lists and counts). */
export const DB_READ_CONNECTIONS: ReadonlySet<string> = new Set(['src/app/state/services.ts']);

/**
 * Import cycles tolerated for now, each exactly as listed (one more file in the knot and it
 * fails). Empty: keep it so; break a new knot by moving what both sides need to a leaf module.
 */
export const KNOWN_CYCLES: readonly (readonly string[])[] = [];

export const RULES = {
  'layer-direction': 'a layer imports only the layers below it',
  'db-access': 'storage (src/db) is used only by the UI and the workers',
  'db-writer':
    'the engine worker is the one writer of the database: the page reads it, other workers hand their writes to the engine',
  'ui-worker-api': 'the UI reaches workers only through their typed APIs',
  'node-builtin': 'browser layers import no Node built-in (Node code goes in a *.node.ts adapter)',
  'node-only-package': 'browser layers import no Node-only package or build tool',
  'node-adapter': 'only Node code imports a *.node.ts adapter',
  'forbidden-package': 'core has no UI, storage or worker plumbing (svelte, dexie, comlink, d3, …)',
  'host-global': 'core takes process / navigator / document / window through parameters',
  'host-clock': 'core takes the time as a parameter (a `now` clock); only src/core/llm/clock.ts reads it',
  'no-require': 'shipped code is ES modules only: no require() or createRequire',
  'static-specifier':
    'shipped code names the module of import() with a plain string, so the graph can be checked',
  unresolved: 'a relative import names an existing file',
  'worker-entry': 'a Worker is started from a workers/*.worker.ts entry module',
  'worker-api-satisfies': "a worker's exposed object `satisfies` its API type",
  'module-face':
    'code outside a core module imports it through a face: `src/core/<module>/index.ts` (or a narrower `index.<name>.ts`, or a `*.node.ts` adapter)',
  'import-cycle':
    'modules do not import each other, not even for types (move what both need to a leaf module)',
} as const;

export type RuleId = keyof typeof RULES;

/**
 * The core module a path belongs to: `src/core/<name>` for every file under that folder (its
 * subfolders included); undefined outside core and for a loose file like `src/core/random.ts`,
 * a module of one file that is its own face.
 */
export function coreModuleOf(path: string): string | undefined {
  return /^src\/core\/[^/]+(?=\/)/.exec(path)?.[0];
}

/**
 * A module in any layer (the core notion generalised): a folder under `src/` with an `index.ts`,
 * its face (with any narrower `index.<name>.ts` beside it) — `src/core/<name>` (as `coreModuleOf`),
 * `src/db`, `src/sdk`, `src/systems`, `src/app/lanes`. Modules nest: `src/systems/loaders` is a
 * module whose files are inside `src/systems` too (in core a nested module is reached from outside
 * its core module only through the core module's face: rule `module-face`). The workers' typed
 * APIs (`WORKER_ENTRY_MODULES`) are the face of `workers`. The module of a face file, or
 * undefined when the path is no face.
 */
export function moduleOfFace(path: string): string | undefined {
  if (WORKER_ENTRY_MODULES.has(path)) return 'workers';
  return /^(src\/.+)\/index(\.[\w-]+)?\.ts$/.exec(path)?.[1];
}

/** Whether a file is inside a module (`moduleOfFace`), in a module nested in it included. */
export function insideModule(path: string, module: string): boolean {
  return path.startsWith(`${module}/`);
}

/**
 * Whether a file is a face of its core module, the files other modules and layers may import:
 * its `index.ts`; a narrower `index.<name>.ts` (`index.light.ts`: a subset for code that must
 * load little, such as the app's start chunk); and its Node-only adapters (`*.node.ts` at the
 * module's top level), which cannot join the index because browsers load it.
 */
export function isModuleFace(path: string): boolean {
  const module = coreModuleOf(path);
  if (!module) return true;
  const rest = path.slice(module.length + 1);
  return !rest.includes('/') && (/^index(\.[\w-]+)?\.ts$/.test(rest) || /\.node\.(ts|mts)$/.test(rest));
}

/** The layer of a path relative to the project root (`/` separators), or undefined. */
export function layerOf(path: string): Layer | undefined {
  for (const [folder, layer] of LAYER_FOLDERS) if (path.startsWith(folder)) return layer;
  return undefined;
}
