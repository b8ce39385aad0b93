/**
 * The layer checker: reads every source file under a project root, resolves its imports
 * with TypeScript's own module resolution (so `'..'`, folder imports and `index.ts` land on
 * the file they mean), and applies the rules of `./rules.ts`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { type DbFunction, type DbWrite, dbFunctionsOf, dbWriterViolations, dbWritesIn } from './db-writes.ts';
import {
  BROWSER_LAYERS,
  CLOCK_ADAPTERS,
  coreModuleOf,
  DB_WRITE_TABLES,
  FORBIDDEN_PACKAGES,
  HOST_GLOBALS,
  isModuleFace,
  KNOWN_CYCLES,
  type Layer,
  layerOf,
  MAY_IMPORT,
  NODE_ONLY_PACKAGES,
  PURE_LAYERS,
  RULES,
  type RuleId,
  SHIPPED_LAYERS,
  WORKER_ENTRY_MODULES,
} from './rules.ts';
import { factsOf, hostGlobalUses, type ImportRef, scriptsOf } from './source.ts';
import ts, { type TS } from './typescript.ts';

interface Violation {
  /** Path relative to the root, `/` separated. */
  file: string;
  line: number;
  rule: RuleId;
  message: string;
}

interface CheckOptions {
  /** Folders (relative to the root) not to read, e.g. the checker's own violating samples. */
  skip?: string[];
}

const SOURCE = /\.(ts|mts|mjs|js|svelte)$/;
const NEVER = new Set(['node_modules', 'dist', 'test-results', 'out', '.git', '.cache']);

function listSources(root: string, dir: string, skip: Set<string>, out: string[]) {
  for (const name of readdirSync(join(root, dir))) {
    const rel = dir ? `${dir}/${name}` : name;
    if (NEVER.has(name) || skip.has(rel)) continue;
    if (statSync(join(root, rel)).isDirectory()) listSources(root, rel, skip, out);
    else if (SOURCE.test(name) && !/\.d\.m?ts$/.test(name)) out.push(rel);
  }
}

/** The source files (`.ts`, `.svelte`, …; no `.d.ts`) under the given folders of `absRoot`, relative to it. */
export function sourceFiles(
  absRoot: string,
  folders: readonly string[],
  skip: readonly string[] = [],
): string[] {
  const files: string[] = [];
  for (const folder of folders)
    if (existsSync(join(absRoot, folder))) listSources(absRoot, folder, new Set(skip), files);
  return files;
}

const toPosix = (p: string) => p.split(sep).join('/');

/** The package a bare specifier names: `d3`, `@mlc-ai/web-llm`, `mem0ai` of `mem0ai/oss`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const isNodeAdapter = (path: string) => /\.node\.(ts|mts)$/.test(path);

/**
 * A resolver of relative specifiers for the tree under `absRoot`, by TypeScript's own module
 * resolution: `(from, specifier)` → the target file relative to the root (`/` separated), or
 * undefined when it names nothing.
 */
export function relativeResolver(absRoot: string): (from: string, specifier: string) => string | undefined {
  const compilerOptions: TS.CompilerOptions = {
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    resolveJsonModule: true,
    allowJs: true,
  };
  const cache = ts.createModuleResolutionCache(absRoot, (s) => s, compilerOptions);
  return (from, specifier) => {
    const abs = resolve(absRoot, dirname(from), specifier);
    if (existsSync(abs) && statSync(abs).isFile()) return toPosix(relative(absRoot, abs));
    const r = ts.resolveModuleName(specifier, join(absRoot, from), compilerOptions, ts.sys, cache);
    const target = r.resolvedModule?.resolvedFileName;
    return target ? toPosix(relative(absRoot, target)) : undefined;
  };
}

/** Checks the tree under `root`; returns every violation, sorted by file and line. */
export function checkLayers(root: string, options: CheckOptions = {}): Violation[] {
  const absRoot = resolve(root);
  // tests/ may import every layer, but through the core modules' faces like everyone else.
  const files = sourceFiles(absRoot, ['src', 'workers', 'bin', 'bench', 'scripts', 'tests'], options.skip);

  const resolveRelative = relativeResolver(absRoot);

  const violations: Violation[] = [];
  /** Resolved relative imports inside the checked tree, for the cycle check. */
  const edges: ImportEdge[] = [];
  const pureFiles: { path: string; text: string }[] = [];
  const dbWrites = new Map<string, DbWrite[]>();
  const dbImports: { file: string; line: number; names: string[] }[] = [];
  const dbFunctions: DbFunction[] = [];
  for (const file of files) {
    const layer = layerOf(file);
    if (!layer) continue;
    const text = readFileSync(join(absRoot, file), 'utf8');
    const add = (line: number, rule: RuleId, message: string) =>
      violations.push({ file, line, rule, message });
    if (PURE_LAYERS.has(layer) && !file.endsWith('.svelte') && !isNodeAdapter(file))
      pureFiles.push({ path: join(absRoot, file), text });

    let scripts: ReturnType<typeof scriptsOf>;
    try {
      scripts = scriptsOf(file, text);
    } catch (e) {
      add(1, 'unresolved', `cannot be parsed: ${(e as Error).message.split('\n')[0]}`);
      continue;
    }
    for (const script of scripts) {
      const facts = factsOf(script);
      for (const ref of facts.imports) {
        checkImport(file, layer, ref, resolveRelative, add);
        const target = ref.specifier.startsWith('.') ? resolveRelative(file, ref.specifier) : undefined;
        if (target) edges.push({ from: file, to: target, line: ref.line, typeOnly: ref.typeOnly });
        if (target && layerOf(target) === 'db' && layer !== 'db' && ref.names?.length)
          dbImports.push({ file, line: ref.line, names: ref.names });
      }
      if (layer === 'db') dbFunctions.push(...dbFunctionsOf(script.source, DB_WRITE_TABLES));
      if (layer === 'app' || layer === 'workers')
        dbWrites.set(file, [
          ...(dbWrites.get(file) ?? []),
          ...dbWritesIn(script.source, script.source, script.firstLine, DB_WRITE_TABLES),
        ]);
      if (SHIPPED_LAYERS.has(layer))
        for (const line of facts.requires) add(line, 'no-require', 'uses require / createRequire');
      if (SHIPPED_LAYERS.has(layer))
        for (const line of facts.dynamicSpecifiers)
          add(
            line,
            'static-specifier',
            'import() of a computed specifier (write the module name as a string)',
          );
      for (const ref of facts.workerUrls) {
        const target = resolveRelative(file, ref.specifier);
        if (!target?.startsWith('workers/') || !target.endsWith('.worker.ts'))
          add(ref.line, 'worker-entry', `starts a Worker from "${ref.specifier}", not a workers/*.worker.ts`);
      }
      if (file.startsWith('workers/') && file.endsWith('.worker.ts'))
        for (const e of facts.exposes)
          if (!e.satisfies)
            add(e.line, 'worker-api-satisfies', 'exposes an object without `satisfies <its Api type>`');
    }
  }

  for (const use of hostGlobalUses(pureFiles, HOST_GLOBALS)) {
    const file = toPosix(relative(absRoot, use.path));
    if (use.kind === 'clock' && CLOCK_ADAPTERS.has(file)) continue;
    violations.push(
      use.kind === 'clock'
        ? {
            file,
            line: use.line,
            rule: 'host-clock',
            message: `reads the clock (\`${use.name}\`): take a \`now\` parameter`,
          }
        : {
            file,
            line: use.line,
            rule: 'host-global',
            message: `uses the global \`${use.name}\` (take it as a parameter)`,
          },
    );
  }

  for (const v of dbWriterViolations({ files, writes: dbWrites, dbImports, dbFunctions, edges }))
    violations.push({ ...v, rule: 'db-writer' });

  for (const cycle of importCycles(edges)) {
    if (KNOWN_CYCLES.some((k) => k.length === cycle.files.length && k.every((f) => cycle.files.includes(f))))
      continue;
    const kind = cycle.ring.every((e) => e.typeOnly) ? ' (type-only)' : '';
    const ring = [...cycle.ring.map((e) => e.from), cycle.ring[0].from].join(' → ');
    const more = cycle.files.length - cycle.ring.length;
    const knot = more
      ? `; ${more} more file(s) in the same knot: ${cycle.files.filter((f) => !cycle.ring.some((e) => e.from === f)).join(', ')}`
      : '';
    for (const e of cycle.ring)
      violations.push({
        file: e.from,
        line: e.line,
        rule: 'import-cycle',
        message: `is in the import cycle ${ring}${kind}${knot}`,
      });
  }

  const unique = new Map(violations.map((v) => [`${v.file}:${v.line}:${v.rule}:${v.message}`, v]));
  return [...unique.values()].sort((a, b) =>
    a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1,
  );
}

interface ImportEdge {
  from: string;
  to: string;
  line: number;
  typeOnly: boolean;
}

/**
 * The import cycles of a graph, type-only imports included (a type cycle still ties two
 * modules together): one ring of edges per strongly connected component (Tarjan), each
 * ring a shortest way round from the component's first file.
 */
export function importCycles(edges: readonly ImportEdge[]): { ring: ImportEdge[]; files: string[] }[] {
  const out = new Map<string, ImportEdge[]>();
  for (const e of edges)
    if (!out.get(e.from)?.some((x) => x.to === e.to)) out.set(e.from, [...(out.get(e.from) ?? []), e]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const strong = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const { to } of out.get(v) ?? []) {
      if (!index.has(to)) {
        strong(to);
        low.set(v, Math.min(low.get(v)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(v, Math.min(low.get(v)!, index.get(to)!));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1 || out.get(v)?.some((e) => e.to === v)) components.push(c);
    }
  };
  for (const v of [...out.keys()].sort()) if (!index.has(v)) strong(v);
  return components.map((c) => {
    const inside = new Set(c);
    const start = [...c].sort()[0];
    // Breadth-first from the start back to itself, inside the component.
    const via = new Map<string, ImportEdge>();
    const queue = [start];
    while (queue.length) {
      const v = queue.shift()!;
      const next = (out.get(v) ?? []).filter((e) => inside.has(e.to));
      const back = next.find((e) => e.to === start);
      if (back) {
        const ring = [back];
        for (let at = v; at !== start; at = via.get(at)!.from) ring.unshift(via.get(at)!);
        return { ring, files: [...c].sort() };
      }
      for (const e of next)
        if (!via.has(e.to) && e.to !== start) {
          via.set(e.to, e);
          queue.push(e.to);
        }
    }
    return { ring: [], files: [...c].sort() };
  });
}

function checkImport(
  file: string,
  layer: Layer,
  ref: ImportRef,
  resolveRelative: (from: string, specifier: string) => string | undefined,
  add: (line: number, rule: RuleId, message: string) => void,
) {
  const specifier = ref.specifier.replace(/\?.*$/, ''); // Vite queries: `x.wasm?url`
  const shown = `"${ref.specifier}"`;
  const browser = BROWSER_LAYERS.has(layer) && !isNodeAdapter(file);
  if (!specifier.startsWith('.') && !specifier.startsWith('/')) {
    if (isBuiltin(specifier)) {
      if (browser) add(ref.line, 'node-builtin', `imports the Node built-in ${shown}`);
      return;
    }
    const pkg = packageOf(specifier);
    if (browser && NODE_ONLY_PACKAGES.has(pkg))
      add(ref.line, 'node-only-package', `imports ${shown}, a Node-only package or build tool`);
    const forbidden = FORBIDDEN_PACKAGES[layer] ?? [];
    if (forbidden.some((p) => pkg === p || pkg.startsWith(`${p}-`)))
      add(ref.line, 'forbidden-package', `imports ${shown}, which ${layer} must not use`);
    return;
  }
  const target = resolveRelative(file, specifier);
  if (!target) {
    add(ref.line, 'unresolved', `imports ${shown}, which names no file`);
    return;
  }
  const to = layerOf(target);
  if (!to) {
    // Node tools may read the root's config files; shipped code stays inside the layers.
    if (BROWSER_LAYERS.has(layer) || layer === 'cli')
      add(ref.line, 'layer-direction', `imports ${shown} (${target}), outside every layer`);
    return;
  }
  if (to !== layer && !MAY_IMPORT[layer].includes(to)) {
    const rule: RuleId = to === 'db' ? 'db-access' : 'layer-direction';
    const allowed = [layer, ...MAY_IMPORT[layer]].join(', ');
    add(ref.line, rule, `imports ${shown} (${target}): ${layer} may import only ${allowed}`);
    return;
  }
  const module = coreModuleOf(target);
  if (module && !isModuleFace(target) && coreModuleOf(file) !== module)
    add(ref.line, 'module-face', `imports ${shown} (${target}), inside ${module}: import ${module}/index.ts`);
  if (layer === 'app' && to === 'workers') {
    const typeOnlyEntry = ref.typeOnly && target.endsWith('.worker.ts');
    if (!WORKER_ENTRY_MODULES.has(target) && !typeOnlyEntry)
      add(
        ref.line,
        'ui-worker-api',
        `imports ${shown} (${target}); use ${[...WORKER_ENTRY_MODULES].join(', ')} or \`import type\` from a *.worker.ts`,
      );
  }
  if (browser && isNodeAdapter(target))
    add(ref.line, 'node-adapter', `imports ${shown} (${target}), a Node-only adapter`);
}

/** One line per violation: `file:line: [rule] message — why the rule exists`. */
export function formatViolation(v: Violation): string {
  return `${v.file}:${v.line}: [${v.rule}] ${v.message} — ${RULES[v.rule]}`;
}
