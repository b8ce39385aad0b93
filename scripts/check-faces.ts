/**
 * Narrow faces: a core module's face (`index.ts`, `index.<name>.ts`) names what other modules
 * and layers import from it — no `export *`, and no name that no file outside the module
 * imports (src/, workers/, bench/, scripts/, bin/ and tests/ count; the module's own files
 * import each other directly). Modules in `WIDE_FACES` keep their `export *` for now: each is
 * narrowed with `--write` when no one is reworking it.
 *
 * `tsx scripts/check-faces.ts [root]` lists what breaks the rule and exits 1; `--write` rewrites
 * the faces of the other modules as `export { a, type B } from './file.ts'` lines of the names used.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { relativeResolver, sourceFiles } from './layers/check.ts';
import { coreModuleOf, isModuleFace } from './layers/rules.ts';
import { scriptsOf } from './layers/source.ts';
import { specifierOf, takenBy } from './layers/taken.ts';
import ts, { sourceProgram, type TS } from './layers/typescript.ts';

/** Modules whose face still re-exports whole files (being reworked elsewhere); the rest are checked. */
export const WIDE_FACES = new Set<string>([]);

const FOLDERS = ['src', 'workers', 'bench', 'scripts', 'bin', 'tests'];
const SKIP = ['tests/fixtures'];

const posix = (p: string) => p.split('\\').join('/');

/** The faces of the core modules under `root` (`src/core/<module>/index*.ts`). */
function facesOf(root: string): string[] {
  return readdirSync(join(root, 'src/core'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      readdirSync(join(root, 'src/core', d.name))
        .map((f) => `src/core/${d.name}/${f}`)
        .filter((f) => isModuleFace(f) && /\/index(\.[\w-]+)?\.ts$/.test(f)),
    );
}

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
        if (target && faces.has(target) && coreModuleOf(file) !== coreModuleOf(target)) {
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

/** One name of a face: where it is declared (inside the module), under which name, a value or a type only. */
interface Export {
  name: string;
  /** Its declaration's file, relative to the root; null when outside the module (a package's). */
  file: string | null;
  original: string;
  isValue: boolean;
}

/** What each face exports, by the type checker (re-exports followed to the declaration). */
function exportsOf(root: string, faces: readonly string[]): Map<string, Export[]> {
  const program = sourceProgram(faces.map((f) => join(root, f)));
  const checker = program.getTypeChecker();
  const out = new Map<string, Export[]>();
  for (const face of faces) {
    const source = program.getSourceFile(join(root, face));
    const symbol = source && checker.getSymbolAtLocation(source);
    const list: Export[] = [];
    for (const e of symbol ? checker.getExportsOfModule(symbol) : []) {
      const target = e.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(e) : e;
      const declared = target.declarations?.[0]?.getSourceFile().fileName;
      const file = declared ? posix(relative(root, declared)) : null;
      list.push({
        name: e.name,
        file: file && coreModuleOf(file) === coreModuleOf(face) ? file : null,
        original: target.name,
        isValue: !!(target.flags & ts.SymbolFlags.Value),
      });
    }
    out.set(face, list);
  }
  return out;
}

/** `export *` lines of a face (syntactic: the file as written). */
function starLines(root: string, face: string): number[] {
  const text = readFileSync(join(root, face), 'utf8');
  return text
    .split('\n')
    .flatMap((line, i) => (/^export \* from /.test(line) || /^export \* as /.test(line) ? [i + 1] : []));
}

/** A face's new text: its header comment, then one `export { … } from` line per file of the names used. */
function narrowText(root: string, face: string, keep: readonly Export[]): string {
  const text = readFileSync(join(root, face), 'utf8');
  const header = /^\/\*\*[\s\S]*?\*\/\n/.exec(text)?.[0] ?? '';
  const byFile = new Map<string, Export[]>();
  for (const e of keep) {
    const from = `./${posix(relative(face.replace(/\/[^/]+$/, ''), e.file!))}`;
    byFile.set(from, [...(byFile.get(from) ?? []), e]);
  }
  const named = (e: Export) => (e.original === e.name ? e.name : `${e.original} as ${e.name}`);
  const lines = [...byFile]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([from, es]) =>
      es.some((e) => e.isValue)
        ? `export { ${es.map((e) => (e.isValue ? named(e) : `type ${named(e)}`)).join(', ')} } from '${from}';`
        : `export type { ${es.map(named).join(', ')} } from '${from}';`,
    );
  return `${header}${header ? '\n' : ''}${lines.join('\n')}\n`;
}

function main() {
  const root = resolve(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? process.cwd());
  const write = process.argv.includes('--write');
  const faces = facesOf(root).filter((f) => !WIDE_FACES.has(coreModuleOf(f)!));
  const uses = usesOf(root, new Set(faces));
  const exports = exportsOf(root, faces);
  const problems: string[] = [];
  const rewritten: string[] = [];
  for (const face of faces) {
    const used = uses.get(face) ?? new Set<string>();
    const all = exports.get(face) ?? [];
    const stars = starLines(root, face);
    const unused = used === 'whole' ? [] : all.filter((e) => !used.has(e.name));
    if (!stars.length && !unused.length) continue;
    for (const line of stars) problems.push(`${face}:${line}: \`export *\`: name what other modules use`);
    if (unused.length)
      problems.push(
        `${face}: exports what no file outside the module imports: ${unused.map((e) => e.name).join(', ')}`,
      );
    const keep = used === 'whole' ? all : all.filter((e) => used.has(e.name));
    if (write && !keep.every((e) => e.file))
      console.log(
        `${face}: left, names declared outside the module: ${keep
          .filter((e) => !e.file)
          .map((e) => e.name)
          .join(', ')}`,
      );
    if (write && keep.every((e) => e.file)) {
      writeFileSync(join(root, face), narrowText(root, face, keep));
      rewritten.push(face);
    }
  }
  if (rewritten.length) {
    execFileSync('npx', ['biome', 'check', '--write', '--linter-enabled=false', ...rewritten], {
      cwd: root,
      stdio: 'inherit',
    });
    console.log(`narrowed ${rewritten.length} face(s): ${rewritten.join(', ')}`);
    return;
  }
  if (problems.length) {
    console.error(`Faces wider than their use (${problems.length}):\n${problems.join('\n')}`);
    process.exit(1);
  }
  console.log(
    `faces: ok (${faces.length} faces name only what others use; still wide: ${[...WIDE_FACES].join(', ')})`,
  );
}

main();
