/**
 * Codemod for the `module-face` layer rule: every import / export-from (static, `import type`,
 * `import('…').T`, `await import('…')`) in src/, workers/, bench/, scripts/, bin/ and tests/
 * whose target is an inner file of a core module other than the importer's own is pointed at
 * that module's `index.ts`, and the index is made to export what the importer takes from the
 * inner file (`export { a, type B } from './file.ts'`, created when the module has no index).
 * Imports of one file that now share a face are merged; Biome then formats what changed.
 * An import it cannot move (a default or side-effect import, a name the index already exports
 * from elsewhere) is listed as left. Re-runnable: on a tree that keeps the rule it changes nothing.
 *
 * `tsx scripts/module-faces.ts` lists what it would change and exits 1 if anything;
 * `tsx scripts/module-faces.ts --write` changes it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { relativeResolver, sourceFiles } from './layers/check.ts';
import { coreModuleOf, isModuleFace } from './layers/rules.ts';
import { scriptsOf } from './layers/source.ts';
import { specifierOf, type Taken, takenBy } from './layers/taken.ts';
import ts, { sourceProgram, type TS } from './layers/typescript.ts';

const FOLDERS = ['src', 'workers', 'bench', 'scripts', 'bin', 'tests'];
/** The layer checker's violating samples and other fixtures keep their imports as written. */
const SKIP = ['tests/fixtures'];

/** One import of an inner file of another core module. */
interface Site {
  file: string;
  line: number;
  specifier: string;
  /** The specifier literal's text range in the file, quotes excluded. */
  start: number;
  end: number;
  target: string;
  module: string;
  /** What it takes: names, the whole module (namespace, `export *`), or a form no face can serve. */
  takes: Taken[] | 'whole' | 'default' | 'side-effect';
  /** The import declaration (for merging), when it is one with named bindings only. */
  decl?: { start: number; end: number; node: TS.ImportDeclaration; offset: number };
}

/** `Map.groupBy`, which Node 20 lacks. */
function groupBy<T, K>(items: readonly T[], key: (t: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const t of items) out.set(key(t), [...(out.get(key(t)) ?? []), t]);
  return out;
}

const posix = (p: string) => p.split('\\').join('/');
const dotted = (p: string) => (p.startsWith('.') ? p : `./${p}`);

/** Every import of an inner file of another core module, in every checked file. */
function findSites(root: string): Site[] {
  const resolveRelative = relativeResolver(root);
  const sites: Site[] = [];
  for (const file of sourceFiles(root, FOLDERS, SKIP)) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const { source, firstLine, offset } of scriptsOf(file, text)) {
      const visit = (n: TS.Node): void => {
        const literal = specifierOf(n);
        const target = literal?.text.startsWith('.') ? resolveRelative(file, literal.text) : undefined;
        const module = target && coreModuleOf(target);
        if (literal && target && module && !isModuleFace(target) && coreModuleOf(file) !== module) {
          const start = offset + literal.getStart(source) + 1;
          const takes = takenBy(n);
          const decl =
            ts.isImportDeclaration(n) && Array.isArray(takes)
              ? { start: offset + n.getStart(source), end: offset + n.getEnd(), node: n, offset }
              : undefined;
          sites.push({
            file,
            line: source.getLineAndCharacterOfPosition(literal.getStart(source)).line + firstLine,
            specifier: literal.text,
            start,
            end: start + literal.text.length,
            target,
            module,
            takes,
            decl,
          });
        }
        ts.forEachChild(n, visit);
      };
      visit(source);
    }
  }
  return sites;
}

/** A name to add to a face: `export { name } from './from.ts'` (or `type name`). */
interface Addition {
  module: string;
  from: string;
  name: string;
  isValue: boolean;
}

/**
 * What each module's face exports and what its inner files export, by the type checker (symbols
 * followed through re-exports), so "already exported" means the same declaration, not the same name.
 */
function exportTables(root: string, sites: readonly Site[]) {
  const faces = [...new Set(sites.map((s) => `${s.module}/index.ts`))].filter((f) =>
    existsSync(join(root, f)),
  );
  const targets = [...new Set(sites.map((s) => s.target))];
  const program = sourceProgram([...faces, ...targets].map((f) => join(root, f)));
  const checker = program.getTypeChecker();
  const exportsOf = (file: string): Map<string, TS.Symbol> => {
    const source = program.getSourceFile(join(root, file));
    const symbol = source && checker.getSymbolAtLocation(source);
    const out = new Map<string, TS.Symbol>();
    if (!symbol) return out;
    for (const e of checker.getExportsOfModule(symbol))
      out.set(e.name, e.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(e) : e);
    return out;
  };
  const faceExports = new Map(faces.map((f) => [coreModuleOf(f)!, exportsOf(f)]));
  const targetExports = new Map(targets.map((f) => [f, exportsOf(f)]));
  return { faceExports, targetExports };
}

/** Decides each site: moved (with the face exports it needs) or left, and why. */
function plan(root: string, sites: readonly Site[]) {
  const { faceExports, targetExports } = exportTables(root, sites);
  const additions: Addition[] = [];
  const moved: Site[] = [];
  const left: { site: Site; why: string }[] = [];
  for (const site of sites) {
    if (site.takes === 'default' || site.takes === 'side-effect') {
      left.push({ site, why: `a ${site.takes} import (a face re-exports names)` });
      continue;
    }
    const face = faceExports.get(site.module) ?? new Map<string, TS.Symbol>();
    faceExports.set(site.module, face);
    const own = targetExports.get(site.target)!;
    const names = site.takes === 'whole' ? [...own.keys()] : site.takes.map((t) => t.name);
    const need: Addition[] = [];
    let why = '';
    for (const name of names) {
      const symbol = own.get(name);
      const there = face.get(name);
      if (!symbol) why ||= `${name} is not exported by ${site.target}`;
      else if (there && there !== symbol) why ||= `${site.module}/index.ts exports another ${name}`;
      else if (!there) {
        const from = dotted(posix(relative(site.module, site.target)));
        need.push({ module: site.module, from, name, isValue: !!(symbol.flags & ts.SymbolFlags.Value) });
      }
    }
    if (why) {
      left.push({ site, why });
      continue;
    }
    for (const a of need) face.set(a.name, own.get(a.name)!);
    additions.push(...need);
    moved.push(site);
  }
  return { additions, moved, left };
}

/** `import { a, type B } from 'x';` (or `import type { … }` when every name is a type), wrapped as Biome would. */
function importText(takes: { text: string; typeOnly: boolean }[], specifier: string, indent: string): string {
  const allTypes = takes.every((t) => t.typeOnly);
  const names = [...new Set(takes.map((t) => (t.typeOnly && !allTypes ? `type ${t.text}` : t.text)))];
  names.sort((a, b) => a.replace(/^type /, '').localeCompare(b.replace(/^type /, ''), 'en'));
  const head = allTypes ? 'import type' : 'import';
  const one = `${head} { ${names.join(', ')} } from '${specifier}';`;
  if (indent.length + one.length <= 110) return one;
  return `${head} {\n${names.map((n) => `${indent}  ${n},\n`).join('')}${indent}} from '${specifier}';`;
}

/** The new text of one file: specifiers pointed at faces, declarations that now share a face merged. */
function rewriteFile(root: string, file: string, sites: readonly Site[]): string {
  const text = readFileSync(join(root, file), 'utf8');
  const faceSpec = (s: Site) => dotted(posix(relative(dirname(file), `${s.module}/index.ts`)));
  const edits: { start: number; end: number; text: string }[] = [];
  const byFace = new Map<string, Site[]>();
  for (const s of sites) {
    if (!s.decl) edits.push({ start: s.start, end: s.end, text: faceSpec(s) });
    else
      byFace.set(`${s.decl.offset}:${faceSpec(s)}`, [
        ...(byFace.get(`${s.decl.offset}:${faceSpec(s)}`) ?? []),
        s,
      ]);
  }
  for (const [key, group] of byFace) {
    const spec = key.slice(key.indexOf(':') + 1);
    const first = group[0].decl!;
    const lineStart = text.lastIndexOf('\n', first.start - 1) + 1;
    const indent = /^[ \t]*/.exec(text.slice(lineStart))![0];
    const takes = group.flatMap((s) => {
      const clause = s.decl!.node.importClause!;
      const named = clause.namedBindings as TS.NamedImports;
      return named.elements.map((e) => ({
        text: e.propertyName ? `${e.propertyName.text} as ${e.name.text}` : e.name.text,
        typeOnly: clause.isTypeOnly || e.isTypeOnly,
      }));
    });
    edits.push({ start: first.start, end: first.end, text: importText(takes, spec, indent) });
    for (const s of group.slice(1)) {
      const end = text[s.decl!.end] === '\n' ? s.decl!.end + 1 : s.decl!.end;
      const start = text.lastIndexOf('\n', s.decl!.start - 1) + 1;
      edits.push({
        start: /^[ \t]*$/.test(text.slice(start, s.decl!.start)) ? start : s.decl!.start,
        end,
        text: '',
      });
    }
  }
  let out = text;
  for (const e of edits.sort((a, b) => b.start - a.start))
    out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

/** The new text of a face: its export lines, with the additions merged into `export { … } from` lines. */
function faceText(root: string, module: string, additions: readonly Addition[]): string {
  const path = join(root, module, 'index.ts');
  const header = `/** The face of \`${module}\`: what other modules and layers import from it. */\n`;
  let text = existsSync(path) ? readFileSync(path, 'utf8') : header;
  const byFile = groupBy(additions, (a) => a.from);
  for (const [from, adds] of byFile) {
    const names = adds.map((a) => (a.isValue ? a.name : `type ${a.name}`));
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest);
    const existing = source.statements.find(
      (s): s is TS.ExportDeclaration =>
        ts.isExportDeclaration(s) &&
        !s.isTypeOnly &&
        !!s.exportClause &&
        ts.isNamedExports(s.exportClause) &&
        !!s.moduleSpecifier &&
        ts.isStringLiteral(s.moduleSpecifier) &&
        s.moduleSpecifier.text === from,
    );
    if (existing) {
      const clause = existing.exportClause as TS.NamedExports;
      const all = [...clause.elements.map((e) => e.getText(source)), ...names];
      text = `${text.slice(0, clause.getStart(source))}{ ${all.join(', ')} }${text.slice(clause.getEnd())}`;
    } else text = `${text.replace(/\n*$/, '\n')}export { ${names.join(', ')} } from '${from}';\n`;
  }
  return text;
}

function main() {
  const root = resolve(process.cwd());
  const write = process.argv.includes('--write');
  const sites = findSites(root);
  const { additions, moved, left } = plan(root, sites);
  for (const s of moved) console.log(`${s.file}:${s.line}: "${s.specifier}" → ${s.module}/index.ts`);
  for (const [module, adds] of groupBy(additions, (a) => a.module))
    console.log(`${module}/index.ts: exports ${adds.map((a) => `${a.name} (${a.from})`).join(', ')}`);
  for (const { site, why } of left)
    console.log(`${site.file}:${site.line}: left "${site.specifier}": ${why}`);
  const files = [...new Set(moved.map((s) => s.file))];
  const faces = [...new Set(additions.map((a) => a.module))];
  console.log(
    `${moved.length} import(s) to move in ${files.length} file(s), ${additions.length} name(s) to add to ${faces.length} face(s), ${left.length} left`,
  );
  if (!write) process.exit(moved.length || additions.length ? 1 : 0);

  const changed: string[] = [];
  for (const file of files) {
    writeFileSync(
      join(root, file),
      rewriteFile(
        root,
        file,
        moved.filter((s) => s.file === file),
      ),
    );
    changed.push(file);
  }
  for (const module of faces) {
    writeFileSync(
      join(root, module, 'index.ts'),
      faceText(
        root,
        module,
        additions.filter((a) => a.module === module),
      ),
    );
    changed.push(`${module}/index.ts`);
  }
  // Biome sorts the names and wraps the lines as the rest of the tree (it does not read .svelte files).
  const formatted = changed.filter((f) => !f.endsWith('.svelte'));
  if (formatted.length)
    execFileSync('npx', ['biome', 'check', '--write', '--linter-enabled=false', ...formatted], {
      cwd: root,
      stdio: 'inherit',
    });
  console.log(`changed ${changed.length} file(s)`);
}

main();
