/**
 * TSDoc on the public core: every export of each `src/core/*\/index.ts`, followed through
 * re-exports to its declaration, must carry a `/** … *\/` comment with text (for `export const`,
 * on the variable statement). Prints `file: name (declared in path)` per missing one and exits 1
 * (also when it finds no export at all: a wrong root); otherwise one ok line with the count.
 * `tsx scripts/check-tsdoc.ts [root]` (default: the current folder).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts, { type TS } from './layers/typescript.ts';

/** One export of an index file, with where its declaration lives. */
interface PublicExport {
  /** The index file, relative to the root. */
  index: string;
  /** The name the index exports it under. */
  name: string;
  /** The file of its declaration, relative to the root. */
  declaredIn: string;
  /** Its name at the declaration, when the re-export renamed it. */
  declaredAs?: string;
  documented: boolean;
}

/** The `src/core/<module>/index.ts` files under root, sorted. */
function coreIndexes(root: string): string[] {
  const core = join(root, 'src/core');
  if (!existsSync(core)) return [];
  return readdirSync(core, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(core, d.name, 'index.ts')))
    .map((d) => join(core, d.name, 'index.ts'))
    .sort();
}

/** The node a doc comment sits on: a variable's statement, otherwise the declaration itself. */
function commentHost(decl: TS.Declaration): TS.Node {
  if (ts.isVariableDeclaration(decl) && ts.isVariableDeclarationList(decl.parent)) return decl.parent.parent;
  return decl;
}

/**
 * The comment closest above the node is a JSDoc with text, on the lines right above it: one
 * separated by a blank line is the file's header (TypeScript attaches that to the first
 * statement too), not this export's doc.
 */
function hasDocText(node: TS.Node): boolean {
  const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
  const doc = docs[docs.length - 1];
  if (!doc || (ts.getTextOfJSDocComment(doc.comment) ?? '').trim() === '') return false;
  const gap = node.getSourceFile().text.slice(doc.end, node.getStart());
  return !/\n[ \t]*\r?\n/.test(gap);
}

/** Every export of every core index file (by index, then name), whether its declaration is documented. */
export function publicExports(rootDir: string): PublicExport[] {
  const root = resolve(rootDir);
  const indexes = coreIndexes(root);
  const program = ts.createProgram(indexes, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    resolveJsonModule: true,
    noEmit: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const rel = (p: string) => relative(root, p).split('\\').join('/');
  const out: PublicExport[] = [];
  for (const index of indexes) {
    const source = program.getSourceFile(index);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) continue;
    const exports = checker.getExportsOfModule(moduleSymbol);
    exports.sort((a, b) => (a.getName() < b.getName() ? -1 : a.getName() > b.getName() ? 1 : 0));
    for (const exported of exports) {
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const decls = target.declarations ?? [];
      const name = exported.getName();
      const declaredAs = target.getName();
      out.push({
        index: rel(index),
        name,
        declaredIn: decls.length ? rel(decls[0].getSourceFile().fileName) : '?',
        ...(declaredAs !== name && declaredAs !== 'default' ? { declaredAs } : {}),
        // Overloads and merged declarations: one documented declaration documents the export.
        documented: decls.some((d) => hasDocText(commentHost(d))),
      });
    }
  }
  return out;
}

/** `file: name (declared in path)`, with the declared name when a re-export renamed it. */
function formatMissing(e: PublicExport): string {
  return `${e.index}: ${e.name} (declared in ${e.declaredIn}${e.declaredAs ? ` as ${e.declaredAs}` : ''})`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = process.argv[2] ?? process.cwd();
  const all = publicExports(root);
  if (all.length === 0) {
    // A wrong root must not pass as "all documented".
    console.error(`TSDoc check: no exports found in ${join(root, 'src/core/*/index.ts')}`);
    process.exit(1);
  }
  const missing = all.filter((e) => !e.documented);
  if (missing.length) {
    console.error(
      `TSDoc missing on ${missing.length} of ${all.length} core exports:\n${missing.map(formatMissing).join('\n')}`,
    );
    process.exit(1);
  }
  console.log(`tsdoc: ok (${all.length} core exports documented)`);
}
