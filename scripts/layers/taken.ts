/**
 * What an import-like node takes from the module it names — the names, the whole module, a
 * default or nothing — and its specifier: shared by the face codemod (`module-faces.ts`) and
 * the narrow-face check (`check-faces.ts`).
 */
import ts, { type TS } from './typescript.ts';

/** A name an import takes from a module. */
export interface Taken {
  name: string;
  typeOnly: boolean;
}

/**
 * The names an import / export-from / `import('…').T` / `await import('…')` takes: the names,
 * `whole` (a namespace import, `export *`, an import() used whole), `default` or `side-effect`.
 */
export function takenBy(node: TS.Node): Taken[] | 'whole' | 'default' | 'side-effect' {
  if (ts.isImportDeclaration(node)) {
    const clause = node.importClause;
    if (!clause) return 'side-effect';
    if (clause.name) return 'default';
    const bindings = clause.namedBindings;
    if (!bindings || ts.isNamespaceImport(bindings)) return 'whole';
    return bindings.elements.map((e) => ({
      name: (e.propertyName ?? e.name).text,
      typeOnly: clause.isTypeOnly || e.isTypeOnly,
    }));
  }
  if (ts.isExportDeclaration(node)) {
    const clause = node.exportClause;
    if (!clause || !ts.isNamedExports(clause)) return 'whole';
    return clause.elements.map((e) => ({
      name: (e.propertyName ?? e.name).text,
      typeOnly: node.isTypeOnly || e.isTypeOnly,
    }));
  }
  if (ts.isImportTypeNode(node)) {
    let q = node.qualifier;
    while (q && ts.isQualifiedName(q)) q = q.left;
    return q ? [{ name: q.text, typeOnly: true }] : 'whole';
  }
  // `(await import('…')).a`: that name.
  const awaited = ts.isAwaitExpression(node.parent) ? node.parent : undefined;
  const together = awaited ? undefined : allAt(node);
  if (together) return together;
  const access = awaited && ts.isParenthesizedExpression(awaited.parent) ? awaited.parent.parent : undefined;
  if (access && ts.isPropertyAccessExpression(access) && ts.isIdentifier(access.name))
    return [{ name: access.name.text, typeOnly: false }];
  // `const { a, b } = await import('…')`: the names destructured; anything else takes the whole module.
  const parent = awaited ? awaited.parent : undefined;
  if (parent && ts.isVariableDeclaration(parent) && ts.isObjectBindingPattern(parent.name)) {
    const names = parent.name.elements.map((e) => e.propertyName ?? e.name);
    if (names.every(ts.isIdentifier)) return names.map((n) => ({ name: n.text, typeOnly: false }));
  }
  return 'whole';
}

/**
 * `const [{ a }, { b }] = await Promise.all([import('…'), import('…')])`: the names destructured
 * at the import's place; undefined when the import is not such an element.
 */
function allAt(node: TS.Node): Taken[] | 'whole' | undefined {
  const list = node.parent;
  const call = list && ts.isArrayLiteralExpression(list) ? list.parent : undefined;
  if (!call || !ts.isCallExpression(call) || call.expression.getText() !== 'Promise.all') return undefined;
  const decl = ts.isAwaitExpression(call.parent) ? call.parent.parent : undefined;
  if (!decl || !ts.isVariableDeclaration(decl) || !ts.isArrayBindingPattern(decl.name)) return 'whole';
  const at = decl.name.elements[(list as TS.ArrayLiteralExpression).elements.indexOf(node as TS.Expression)];
  if (!at || ts.isOmittedExpression(at)) return [];
  if (!ts.isObjectBindingPattern(at.name)) return 'whole';
  const names = at.name.elements.map((e) => e.propertyName ?? e.name);
  return names.every(ts.isIdentifier) ? names.map((n) => ({ name: n.text, typeOnly: false })) : 'whole';
}

/** The module specifier node of an import-like node, when it is a plain string. */
export function specifierOf(n: TS.Node): TS.StringLiteralLike | undefined {
  let s: TS.Node | undefined;
  if (ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) s = n.moduleSpecifier;
  else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument)) s = n.argument.literal;
  else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) s = n.arguments[0];
  return s && ts.isStringLiteralLike(s) ? s : undefined;
}
