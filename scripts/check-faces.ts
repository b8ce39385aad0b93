/**
 * Narrow faces: a module's face (`index.ts`, `index.<name>.ts`) names what other modules and
 * layers import from it — no `export *`, and no name that no file outside the module imports
 * (src/, workers/, bench/, scripts/, bin/ and tests/ count; the module's own files import each
 * other directly), and naming all they import. A module is a folder under src/ with an
 * `index.ts` (`moduleOfFace` in ./layers/rules.ts); modules nest, and a nested module's face
 * names what the files outside its folder (its parent's included) take. The workers' API
 * (`workers/api.ts`) is a face too, whose names the workers' own files take as well. A public
 * face (`PUBLIC_FACES`: the SDK, which users import) keeps every name, but names them too.
 * Modules in `WIDE_FACES` keep their `export *` while someone reworks them (none now).
 *
 * `tsx scripts/check-faces.ts [root]` lists what breaks the rule and exits 1; `--write` rewrites
 * the faces as `export { a, type B } from './file.ts'` lines of the names used, adding those a
 * face lacks (after a merge) from the file of the module declaring them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { relativeResolver, sourceFiles } from './layers/check.ts';
import { insideModule, moduleOfFace, WORKER_ENTRY_MODULES } from './layers/rules.ts';
import { scriptsOf } from './layers/source.ts';
import { specifierOf, takenBy } from './layers/taken.ts';
import ts, { sourceProgram, type TS } from './layers/typescript.ts';

/** Modules whose face may still re-export whole files (being reworked elsewhere); the rest are checked. */
export const WIDE_FACES = new Set<string>([]);

/** Faces of a package's public API: every name counts as used (people import them), yet each is named. */
export const PUBLIC_FACES = new Set(['src/sdk/index.ts']);

const FOLDERS = ['src', 'workers', 'bench', 'scripts', 'bin', 'tests'];
const SKIP = ['tests/fixtures'];

const posix = (p: string) => p.split('\\').join('/');

/** The folders under `dir` (relative to `root`) that have an `index.ts`, `dir` included. */
function modulesOf(root: string, dir = 'src', out: string[] = []): string[] {
  if (existsSync(join(root, dir, 'index.ts'))) out.push(dir);
  for (const d of readdirSync(join(root, dir), { withFileTypes: true }))
    if (d.isDirectory() && d.name !== 'node_modules') modulesOf(root, `${dir}/${d.name}`, out);
  return out;
}

/** The faces under `root`: each module's `index.ts` and `index.<name>.ts`, and the workers' API. */
function facesOf(root: string): string[] {
  const indexes = modulesOf(root)
    .sort()
    .flatMap((module) =>
      readdirSync(join(root, module))
        .map((f) => `${module}/${f}`)
        .filter((f) => moduleOfFace(f) === module),
    );
  return [...indexes, ...[...WORKER_ENTRY_MODULES].filter((f) => existsSync(join(root, f)))];
}

/**
 * Whether `file` taking from `face` is its module's own use (not counted): a file inside the
 * module. The workers' API is the exception: the workers take their shared types from it too,
 * so every file but the face counts.
 */
const ownUse = (file: string, face: string) =>
  WORKER_ENTRY_MODULES.has(face) ? file === face : insideModule(file, moduleOfFace(face)!);

/** For each face: the names files outside its module take from it, or `whole` when one takes it all. */
function usesOf(root: string, faces: ReadonlySet<string>): Map<string, Set<string> | 'whole'> {
  const resolveRelative = relativeResolver(root);
  const uses = new Map<string, Set<string> | 'whole'>();
  for (const file of sourceFiles(root, FOLDERS, SKIP)) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const { source } of scriptsOf(file, text)) {
      const visit = (n: TS.Node): void => {
        const literal = specifierOf(n);
        const target = literal?.text.startsWith('.') ? resolveRelative(file, literal.text) : undefined;
        if (target && faces.has(target) && !ownUse(file, target)) {
          const takes = takenBy(n);
          const had = uses.get(target) ?? new Set<string>();
          if (takes === 'whole' || had === 'whole') uses.set(target, 'whole');
          else if (Array.isArray(takes)) uses.set(target, new Set([...had, ...takes.map((t) => t.name)]));
        }
        ts.forEachChild(n, visit);
      };
      visit(source);
    }
  }
  return uses;
}

/** How `face` names `file` of its module in a re-export (`./file.ts`, `./loaders/load.ts`). */
const specifierFrom = (face: string, file: string) =>
  `./${posix(relative(face.replace(/\/[^/]+$/, ''), file))}`;

/** One name of a face: the file of the module it is re-exported from, under which name, a value or a type only. */
interface Export {
  name: string;
  /** The specifier the face re-exports it from (`./file.ts`); null when no file of the module has it. */
  from: string | null;
  /** Its name in that file (`default` of a Svelte component). */
  original: string;
  isValue: boolean;
}

/**
 * Where a face takes one name from: the specifier as the face writes it when it names the name
 * (`export { a } from './a.ts'`, kept, whatever it points at); else, for a name of `export *`,
 * the first file of the module along its re-export chain (the declaration's, or the module's
 * file re-exporting another module's name) — or the face of a module nested in it that holds
 * that file and names the name (`./loaders/index.ts`).
 */
function exportOf(
  root: string,
  face: string,
  e: TS.Symbol,
  checker: TS.TypeChecker,
  inModule: (file: string) => boolean,
  nested: (file: string, name: string) => string | undefined,
): Export {
  const alias = e.flags & ts.SymbolFlags.Alias;
  const target = alias ? checker.getAliasedSymbol(e) : e;
  const resolved = !!target.declarations?.length;
  const isValue = !resolved || !!(target.flags & ts.SymbolFlags.Value);
  const written = e.declarations?.find(
    (d) => ts.isExportSpecifier(d) && posix(relative(root, d.getSourceFile().fileName)) === face,
  ) as TS.ExportSpecifier | undefined;
  const decl = written?.parent.parent;
  if (written && decl?.moduleSpecifier && ts.isStringLiteral(decl.moduleSpecifier))
    return {
      name: e.name,
      from: decl.moduleSpecifier.text,
      original: (written.propertyName ?? written.name).text,
      isValue: isValue && !written.isTypeOnly && !decl.isTypeOnly,
    };
  for (let s: TS.Symbol | undefined = e; s; ) {
    const declared = s.declarations?.[0]?.getSourceFile().fileName;
    const file = declared && posix(relative(root, declared));
    if (file && file !== face && inModule(file))
      return {
        name: e.name,
        from: specifierFrom(face, nested(file, e.name) ?? file),
        original: e.name,
        isValue,
      };
    s = s.flags & ts.SymbolFlags.Alias ? checker.getImmediateAliasedSymbol(s) : undefined;
  }
  return { name: e.name, from: null, original: e.name, isValue };
}

/** The type checker over `files` (relative to `root`), and each file's exported symbols. */
function symbolsOf(root: string, files: readonly string[]) {
  const program = sourceProgram(files.map((f) => join(root, f)));
  const checker = program.getTypeChecker();
  const exports = (file: string) => {
    const source = program.getSourceFile(join(root, file));
    const symbol = source && checker.getSymbolAtLocation(source);
    return symbol ? checker.getExportsOfModule(symbol) : [];
  };
  return { checker, exports };
}

/** What each face exports, by the type checker, each name with the file it is re-exported from. */
function exportsOf(root: string, faces: readonly string[]): Map<string, Export[]> {
  const { checker, exports } = symbolsOf(root, faces);
  const names = new Map(faces.map((f) => [f, new Set(exports(f).map((e) => e.name))]));
  const out = new Map<string, Export[]>();
  for (const face of faces) {
    const module = moduleOfFace(face)!;
    // The outermost module nested in this one that holds `file`, when its face names `name`.
    const nested = (file: string, name: string) =>
      faces
        .filter((f) => f.endsWith('/index.ts') && moduleOfFace(f) !== module && insideModule(f, module))
        .filter((f) => insideModule(file, moduleOfFace(f)!) && names.get(f)?.has(name))
        .sort((a, b) => a.length - b.length)[0];
    const inModule = (file: string) => insideModule(file, module);
    out.set(
      face,
      exports(face).map((e) => exportOf(root, face, e, checker, inModule, nested)),
    );
  }
  return out;
}

/**
 * Where the files of a face's module declare `names` the face does not name (taken through it
 * by a branch merged after the face was narrowed): each name declared by exactly one file of
 * the module (not re-exported), as the face would name it; the others stay missing.
 */
function offersOf(root: string, face: string, names: readonly string[]): Export[] {
  const files = sourceFiles(root, [moduleOfFace(face)!]).filter(
    (f) => /\.m?ts$/.test(f) && !/\.d\.m?ts$/.test(f) && f !== face,
  );
  const { exports } = symbolsOf(root, files);
  const found = new Map<string, Export[]>();
  for (const file of files) {
    for (const e of exports(file)) {
      if (!names.includes(e.name) || e.flags & ts.SymbolFlags.Alias) continue;
      if (posix(relative(root, e.declarations?.[0]?.getSourceFile().fileName ?? '')) !== file) continue;
      const from = specifierFrom(face, file);
      const isValue = !!(e.flags & ts.SymbolFlags.Value);
      found.set(e.name, [...(found.get(e.name) ?? []), { name: e.name, from, original: e.name, isValue }]);
    }
  }
  return [...found.values()].filter((list) => list.length === 1).map(([e]) => e);
}

/**
 * The side-effect imports of a face (`import './x.ts'`, with the comment above each), which
 * `--write` keeps; null when the face has code of its own besides them and its re-exports.
 */
function sideEffects(root: string, face: string): string[] | null {
  const text = readFileSync(join(root, face), 'utf8');
  const source = ts.createSourceFile(face, text, ts.ScriptTarget.ES2022);
  const reExport = (st: TS.Statement) => ts.isExportDeclaration(st) && !!st.moduleSpecifier;
  const sideEffect = (st: TS.Statement) => ts.isImportDeclaration(st) && !st.importClause;
  if (!source.statements.every((st) => reExport(st) || sideEffect(st))) return null;
  const header = headerOf(text);
  return source.statements
    .filter(sideEffect)
    .map((st) => text.slice(st.getFullStart(), st.getEnd()).replace(header, '').trim());
}

/** A face's file comment (`/** … *\/` first in the file), with its line end. */
const headerOf = (text: string) => /^\/\*\*[\s\S]*?\*\/\n/.exec(text)?.[0] ?? '';

/** `export *` lines of a face (syntactic: the file as written). */
function starLines(root: string, face: string): number[] {
  const text = readFileSync(join(root, face), 'utf8');
  return text.split('\n').flatMap((line, i) => (/^export (type )?\* (from|as) /.test(line) ? [i + 1] : []));
}

/** A face's new text: its header comment, its side-effect imports, then one `export { … } from` line per file of the names used. */
function narrowText(root: string, face: string, keep: readonly Export[], kept: readonly string[]): string {
  const header = headerOf(readFileSync(join(root, face), 'utf8'));
  const byFile = new Map<string, Export[]>();
  for (const e of keep) byFile.set(e.from!, [...(byFile.get(e.from!) ?? []), e]);
  const named = (e: Export) => (e.original === e.name ? e.name : `${e.original} as ${e.name}`);
  const lines = [...byFile]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([from, es]) =>
      es.some((e) => e.isValue)
        ? `export { ${es.map((e) => (e.isValue ? named(e) : `type ${named(e)}`)).join(', ')} } from '${from}';`
        : `export type { ${es.map(named).join(', ')} } from '${from}';`,
    );
  const top = kept.length ? `${kept.join('\n')}\n\n` : '';
  return `${header}${header && !kept.length ? '\n' : ''}${top}${lines.join('\n')}\n`;
}

/** Each face's problems; with `write`, the faces rewritten to name what is used (and what was lacking). */
function review(root: string, write: boolean) {
  const faces = facesOf(root).filter((f) => !WIDE_FACES.has(moduleOfFace(f)!));
  const uses = usesOf(root, new Set(faces));
  const exports = exportsOf(root, faces);
  const problems: string[] = [];
  const rewritten: string[] = [];
  for (const face of faces) {
    const used = PUBLIC_FACES.has(face) ? 'whole' : (uses.get(face) ?? new Set<string>());
    const all = exports.get(face) ?? [];
    const stars = starLines(root, face);
    const unused = used === 'whole' ? [] : all.filter((e) => !used.has(e.name));
    const missing = used === 'whole' ? [] : [...used].filter((n) => !all.some((e) => e.name === n));
    if (!stars.length && !unused.length && !missing.length) continue;
    for (const line of stars) problems.push(`${face}:${line}: \`export *\`: name what other modules use`);
    if (unused.length)
      problems.push(
        `${face}: exports what no file outside the module imports: ${unused.map((e) => e.name).join(', ')}`,
      );
    if (missing.length)
      problems.push(
        `${face}: does not name what files outside the module import from it: ${missing.join(', ')}`,
      );
    if (!write) continue;
    const offered = missing.length ? offersOf(root, face, missing) : [];
    const keep = [...(used === 'whole' ? all : all.filter((e) => used.has(e.name))), ...offered];
    const kept = sideEffects(root, face);
    const why = !kept
      ? 'it has code of its own'
      : keep.some((e) => !e.from)
        ? `no file of the module has ${keep.filter((e) => !e.from).map((e) => e.name)}`
        : offered.length < missing.length
          ? `no one file of the module declares ${missing.filter((n) => !offered.some((e) => e.name === n))}`
          : '';
    if (why) console.log(`${face}: left as it is: ${why}`);
    else {
      writeFileSync(join(root, face), narrowText(root, face, keep, kept!));
      rewritten.push(face);
    }
  }
  return { faces: faces.length, problems, rewritten };
}

function main() {
  const root = resolve(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? process.cwd());
  if (process.argv.includes('--write')) {
    // A rewritten face asks other things of the faces nested in it: rewrite until none changes.
    const rewritten = new Set<string>();
    for (let pass = 0; pass < 4; pass++) {
      const r = review(root, true);
      if (!r.rewritten.length) break;
      execFileSync('npx', ['biome', 'check', '--write', '--linter-enabled=false', ...r.rewritten], {
        cwd: root,
        stdio: 'inherit',
      });
      for (const f of r.rewritten) rewritten.add(f);
    }
    console.log(
      rewritten.size
        ? `rewrote ${rewritten.size} face(s): ${[...rewritten].join(', ')}`
        : 'faces: nothing to rewrite',
    );
    return;
  }
  const { faces, problems } = review(root, false);
  if (problems.length) {
    console.error(`Faces wider than their use (${problems.length}):\n${problems.join('\n')}`);
    process.exit(1);
  }
  const wide = WIDE_FACES.size ? `; still wide: ${[...WIDE_FACES].join(', ')}` : '';
  console.log(`faces: ok (${faces} faces name only what others use${wide})`);
}

main();
