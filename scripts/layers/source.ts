/**
 * What the layer checker needs to know of one source file, read from the TypeScript
 * syntax tree (Svelte components: their `<script>` blocks, found by Svelte's own parser):
 * every module it imports (static, dynamic, type-only, `require`, `import x = require`),
 * dynamic imports whose specifier is not a plain string, `createRequire`, the Workers it
 * starts and the objects it hands to `Comlink.expose`.
 */
import { parse as parseSvelte } from 'svelte/compiler';
import ts, { type TS } from './typescript.ts';

export interface ImportRef {
  specifier: string;
  line: number;
  /** Erased at compile time (`import type`, `export type`, `import('x').T` in a type). */
  typeOnly: boolean;
  /** An `import` declaration's value names as exported (`default`, `*` for a namespace); absent on other imports. */
  names?: string[];
}

interface SourceFacts {
  imports: ImportRef[];
  /** Lines of `require(…)` calls and `createRequire` uses. */
  requires: number[];
  /** Lines of `import(…)` whose argument is not a plain string. */
  dynamicSpecifiers: number[];
  /** `new Worker(new URL('…', import.meta.url))`: the URL's specifier. */
  workerUrls: ImportRef[];
  /** `Comlink.expose(x)` / `expose(x)`: whether x is (or is declared as) `… satisfies T`. */
  exposes: { line: number; satisfies: boolean }[];
}

/** A parsed script: the syntax tree and the line its first character is on in the file. */
interface Script {
  source: TS.SourceFile;
  firstLine: number;
  /** Where the script starts in the file's text (a Svelte `<script>` block's content; else 0). */
  offset: number;
}

/** The scripts of a file: the file itself, or a Svelte component's `<script>` blocks. */
export function scriptsOf(path: string, text: string): Script[] {
  if (!path.endsWith('.svelte'))
    return [
      { source: ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true), firstLine: 1, offset: 0 },
    ];
  const root = parseSvelte(text, { modern: true });
  const out: Script[] = [];
  for (const block of [root.module, root.instance]) {
    if (!block) continue;
    const { start, end } = block.content as unknown as { start: number; end: number };
    out.push({
      source: ts.createSourceFile(`${path}.ts`, text.slice(start, end), ts.ScriptTarget.Latest, true),
      firstLine: text.slice(0, start).split('\n').length,
      offset: start,
    });
  }
  return out;
}

function isStringLike(n: TS.Node | undefined): n is TS.StringLiteral | TS.NoSubstitutionTemplateLiteral {
  return !!n && (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n));
}

function calleeName(e: TS.Expression): string | undefined {
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  return undefined;
}

function isImportMetaUrl(e: TS.Expression | undefined): boolean {
  return (
    !!e &&
    ts.isPropertyAccessExpression(e) &&
    e.name.text === 'url' &&
    ts.isMetaProperty(e.expression) &&
    e.expression.keywordToken === ts.SyntaxKind.ImportKeyword
  );
}

/** The value names an import clause takes, as their module exports them (none for `import type`). */
function valueNames(clause: TS.ImportClause | undefined): string[] {
  if (!clause || clause.isTypeOnly) return [];
  const names = clause.name ? ['default'] : [];
  const bindings = clause.namedBindings;
  if (bindings && ts.isNamespaceImport(bindings)) names.push('*');
  else if (bindings)
    for (const e of bindings.elements) if (!e.isTypeOnly) names.push((e.propertyName ?? e.name).text);
  return names;
}

/** Reads the facts of one script. */
export function factsOf(script: Script): SourceFacts {
  const { source, firstLine } = script;
  const facts: SourceFacts = {
    imports: [],
    requires: [],
    dynamicSpecifiers: [],
    workerUrls: [],
    exposes: [],
  };
  const lineOf = (n: TS.Node) => source.getLineAndCharacterOfPosition(n.getStart(source)).line + firstLine;
  const satisfiesNames = new Set<string>();
  const exposed: { node: TS.Expression; line: number }[] = [];

  const visit = (n: TS.Node): void => {
    if (ts.isImportDeclaration(n) && isStringLike(n.moduleSpecifier)) {
      const typeOnly = !!n.importClause?.isTypeOnly;
      const names = valueNames(n.importClause);
      facts.imports.push({ specifier: n.moduleSpecifier.text, line: lineOf(n), typeOnly, names });
    } else if (ts.isExportDeclaration(n) && n.moduleSpecifier && isStringLike(n.moduleSpecifier)) {
      facts.imports.push({ specifier: n.moduleSpecifier.text, line: lineOf(n), typeOnly: n.isTypeOnly });
    } else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference)) {
      facts.requires.push(lineOf(n));
      const e = n.moduleReference.expression;
      if (isStringLike(e)) facts.imports.push({ specifier: e.text, line: lineOf(n), typeOnly: n.isTypeOnly });
    } else if (ts.isImportTypeNode(n)) {
      const arg = ts.isLiteralTypeNode(n.argument) ? n.argument.literal : undefined;
      if (isStringLike(arg)) facts.imports.push({ specifier: arg.text, line: lineOf(n), typeOnly: true });
    } else if (ts.isCallExpression(n)) {
      const [arg] = n.arguments;
      if (n.expression.kind === ts.SyntaxKind.ImportKeyword) {
        if (isStringLike(arg)) facts.imports.push({ specifier: arg.text, line: lineOf(n), typeOnly: false });
        else facts.dynamicSpecifiers.push(lineOf(n));
      } else if (ts.isIdentifier(n.expression) && n.expression.text === 'require') {
        facts.requires.push(lineOf(n));
        if (isStringLike(arg)) facts.imports.push({ specifier: arg.text, line: lineOf(n), typeOnly: false });
      } else if (calleeName(n.expression) === 'expose' && arg) {
        exposed.push({ node: arg, line: lineOf(n) });
      }
    } else if (ts.isIdentifier(n) && n.text === 'createRequire') {
      facts.requires.push(lineOf(n));
    } else if (ts.isNewExpression(n) && calleeName(n.expression) === 'Worker') {
      const [url] = n.arguments ?? [];
      if (url && ts.isNewExpression(url) && calleeName(url.expression) === 'URL') {
        const [spec, base] = url.arguments ?? [];
        if (isStringLike(spec) && isImportMetaUrl(base))
          facts.workerUrls.push({ specifier: spec.text, line: lineOf(n), typeOnly: false });
      }
    } else if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name)) {
      if (n.initializer && ts.isSatisfiesExpression(n.initializer)) satisfiesNames.add(n.name.text);
    }
    ts.forEachChild(n, visit);
  };
  visit(source);

  for (const { node, line } of exposed) {
    const e = ts.isParenthesizedExpression(node) ? node.expression : node;
    const satisfies = ts.isSatisfiesExpression(e) || (ts.isIdentifier(e) && satisfiesNames.has(e.text));
    facts.exposes.push({ line, satisfies });
  }
  return facts;
}

/** A use of the host: a global in `names`, or a read of the clock. */
interface HostUse {
  path: string;
  line: number;
  /** `process`, `globalThis.navigator`, … or `Date.now`, `performance.now`, `new Date()`. */
  name: string;
  kind: 'global' | 'clock';
}

/**
 * Uses of host globals (`process`, `navigator`, …) and reads of the host clock
 * (`Date.now()`, `performance.now()`, `new Date()` / `Date()` without arguments) in a set
 * of files, found with the TypeScript binder: a program over exactly these files without
 * the standard library resolves every local name, so a name that resolves to nothing is a
 * global. `new Date(x)` is a pure conversion and not reported.
 */
export function hostGlobalUses(
  files: { path: string; text: string }[],
  names: ReadonlySet<string>,
): HostUse[] {
  const texts = new Map(files.map((f) => [f.path, f.text]));
  const options: TS.CompilerOptions = { noLib: true, noResolve: true, types: [], allowJs: false };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (p) => texts.get(p) ?? read(p);
  host.fileExists = (p) => texts.has(p);
  const program = ts.createProgram({ rootNames: [...texts.keys()], options, host });
  const checker = program.getTypeChecker();
  const out: HostUse[] = [];
  for (const path of texts.keys()) {
    const source = program.getSourceFile(path);
    if (!source) continue;
    const report = (n: TS.Node, name: string, kind: HostUse['kind'] = 'global') =>
      out.push({ path, line: source.getLineAndCharacterOfPosition(n.getStart(source)).line + 1, name, kind });
    const unresolved = (id: TS.Identifier) => {
      const p = id.parent;
      const symbol = ts.isShorthandPropertyAssignment(p)
        ? checker.getShorthandAssignmentValueSymbol(p)
        : checker.getSymbolAtLocation(id);
      // The binder's own `globalThis` has no declaration; a local one does.
      return !symbol?.declarations?.length;
    };
    const visit = (n: TS.Node): void => {
      if (ts.isIdentifier(n) && names.has(n.text)) {
        const p = n.parent;
        const isMemberName =
          (ts.isPropertyAccessExpression(p) && p.name === n) || (ts.isQualifiedName(p) && p.right === n);
        if (!isMemberName && unresolved(n)) report(n, n.text);
      } else if (
        ts.isPropertyAccessExpression(n) &&
        n.name.text === 'now' &&
        ts.isIdentifier(n.expression) &&
        (n.expression.text === 'Date' || n.expression.text === 'performance') &&
        unresolved(n.expression)
      ) {
        report(n, `${n.expression.text}.now`, 'clock');
      } else if (
        (ts.isNewExpression(n) || ts.isCallExpression(n)) &&
        ts.isIdentifier(n.expression) &&
        n.expression.text === 'Date' &&
        !n.arguments?.length &&
        unresolved(n.expression)
      ) {
        report(n, ts.isNewExpression(n) ? 'new Date()' : 'Date()', 'clock');
      } else if (
        ts.isPropertyAccessExpression(n) &&
        names.has(n.name.text) &&
        ts.isIdentifier(n.expression) &&
        (n.expression.text === 'globalThis' || n.expression.text === 'self') &&
        unresolved(n.expression)
      ) {
        report(n, `${n.expression.text}.${n.name.text}`);
      }
      ts.forEachChild(n, visit);
    };
    visit(source);
  }
  return out;
}
