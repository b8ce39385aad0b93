/**
 * Writes to the workbench database as the layer checker sees them in a syntax tree (rule
 * `db-writer`: the engine worker is the database's one writer). A write is a Dexie write call
 * on one of the database's tables — `x.runs.add(…)`, `db.cases.where(…).equals(…).delete()` —
 * or a read-write transaction, `x.transaction('rw', …)`. In `src/db` the checker also learns
 * which exported functions write (their bodies, or a function of `src/db` they call, do), so an
 * import of such a function counts as a write where it is imported.
 */
import { DB_OPEN, DB_READ_CONNECTIONS, DB_WRITER_ENTRY, layerOf } from './rules.ts';
import ts, { type TS } from './typescript.ts';

/** Dexie's methods that change a table or a collection. */
const WRITE_METHODS = new Set([
  'add',
  'bulkAdd',
  'put',
  'bulkPut',
  'update',
  'bulkUpdate',
  'delete',
  'bulkDelete',
  'clear',
  'modify',
]);

/** Whether the expression is a chain (`a.b.where(…).equals(…)`) that passes through one of `tables`. */
function reachesTable(e: TS.Expression, tables: ReadonlySet<string>): boolean {
  let at: TS.Expression = e;
  for (;;) {
    if (ts.isPropertyAccessExpression(at)) {
      if (tables.has(at.name.text)) return true;
      at = at.expression;
    } else if (ts.isCallExpression(at) || ts.isNonNullExpression(at) || ts.isParenthesizedExpression(at)) {
      at = at.expression;
    } else return false;
  }
}

/** What a call writes, in words (`runs.add`, `a read-write transaction`), or undefined when it writes nothing. */
function writeOf(call: TS.CallExpression, tables: ReadonlySet<string>): string | undefined {
  const callee = call.expression;
  if (!ts.isPropertyAccessExpression(callee)) return undefined;
  const method = callee.name.text;
  if (WRITE_METHODS.has(method) && reachesTable(callee.expression, tables))
    return `${tableOf(callee.expression, tables)}.${method}`;
  const [mode] = call.arguments;
  if (method === 'transaction' && mode && ts.isStringLiteral(mode) && mode.text.startsWith('rw'))
    return 'a read-write transaction';
  return undefined;
}

/** The first table a chain passes through, from its end. */
function tableOf(e: TS.Expression, tables: ReadonlySet<string>): string {
  let at: TS.Expression = e;
  while (!(ts.isPropertyAccessExpression(at) && tables.has(at.name.text)))
    at = (at as TS.PropertyAccessExpression | TS.CallExpression).expression;
  return at.name.text;
}

/** One database write in a file: its line and what it writes. */
export interface DbWrite {
  line: number;
  what: string;
}

/** The database writes under `node` (lines offset by `firstLine`, the line its script starts on). */
export function dbWritesIn(
  source: TS.SourceFile,
  node: TS.Node,
  firstLine: number,
  tables: ReadonlySet<string>,
): DbWrite[] {
  const out: DbWrite[] = [];
  const visit = (n: TS.Node): void => {
    if (ts.isCallExpression(n)) {
      const what = writeOf(n, tables);
      if (what)
        out.push({ line: source.getLineAndCharacterOfPosition(n.getStart(source)).line + firstLine, what });
    }
    ts.forEachChild(n, visit);
  };
  visit(node);
  return out;
}

/** A top-level function of a `src/db` file: whether its body writes, and the plain names it calls. */
export interface DbFunction {
  name: string;
  writes: boolean;
  calls: string[];
}

/** The top-level functions (`function f`, `const f = (…) => …`) and classes of a file, with what they write and call. */
export function dbFunctionsOf(source: TS.SourceFile, tables: ReadonlySet<string>): DbFunction[] {
  const out: DbFunction[] = [];
  const add = (name: string, body: TS.Node) => {
    const calls: string[] = [];
    const visit = (n: TS.Node): void => {
      if (ts.isCallExpression(n) && ts.isIdentifier(n.expression)) calls.push(n.expression.text);
      ts.forEachChild(n, visit);
    };
    visit(body);
    out.push({ name, writes: dbWritesIn(source, body, 1, tables).length > 0, calls });
  };
  for (const s of source.statements) {
    if (ts.isFunctionDeclaration(s) && s.name && s.body) add(s.name.text, s.body);
    // A class counts as one function: constructing it hands out its methods' writes.
    else if (ts.isClassDeclaration(s) && s.name) add(s.name.text, s);
    else if (ts.isVariableStatement(s))
      for (const d of s.declarationList.declarations)
        if (ts.isIdentifier(d.name) && d.initializer && ts.isArrowFunction(d.initializer))
          add(d.name.text, d.initializer.body);
  }
  return out;
}

/** The names of the functions that write, directly or through another function of the list they call. */
export function writingFunctions(functions: readonly DbFunction[]): Set<string> {
  const writers = new Set(functions.filter((f) => f.writes).map((f) => f.name));
  for (let grew = true; grew; ) {
    grew = false;
    for (const f of functions)
      if (!writers.has(f.name) && f.calls.some((c) => writers.has(c))) {
        writers.add(f.name);
        grew = true;
      }
  }
  return writers;
}

/** What rule `db-writer` reads of the tree (paths relative to the root). */
export interface DbWriteFacts {
  /** Every file checked. */
  files: readonly string[];
  /** The write calls in each file of the page and the workers. */
  writes: ReadonlyMap<string, readonly DbWrite[]>;
  /** Value imports of `src/db` files: the names taken (`*`: a namespace). */
  dbImports: readonly { file: string; line: number; names: readonly string[] }[];
  /** The top-level functions of `src/db`. */
  dbFunctions: readonly DbFunction[];
  /** The tree's resolved imports. */
  edges: readonly { from: string; to: string; typeOnly: boolean }[];
}

/**
 * The page's files and every worker entry but the engine's, each with the file it is reached
 * from (itself for a start), by value imports: code they reach must not write.
 */
function reachedFromOthers(facts: DbWriteFacts): Map<string, string> {
  const next = new Map<string, string[]>();
  for (const e of facts.edges) if (!e.typeOnly) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const starts = facts.files.filter(
    (f) => layerOf(f) === 'app' || (/^workers\/[^/]+\.worker\.ts$/.test(f) && f !== DB_WRITER_ENTRY),
  );
  const from = new Map<string, string>();
  for (const start of starts) {
    const queue = [start];
    for (let at = queue.pop(); at !== undefined; at = queue.pop()) {
      if (from.has(at)) continue;
      from.set(at, start);
      queue.push(...(next.get(at) ?? []));
    }
  }
  return from;
}

/** A file's writes: its own write calls, and its imports of `openDb` or of a `src/db` function that writes. */
function writesOf(facts: DbWriteFacts, writers: ReadonlySet<string>): Map<string, DbWrite[]> {
  const out = new Map<string, DbWrite[]>();
  const add = (file: string, w: DbWrite) => out.set(file, [...(out.get(file) ?? []), w]);
  for (const [file, writes] of facts.writes)
    for (const w of writes) add(file, { line: w.line, what: `writes the database (${w.what})` });
  for (const i of facts.dbImports)
    for (const name of i.names)
      if (name === DB_OPEN) add(i.file, { line: i.line, what: `opens the database (${DB_OPEN})` });
      else if (name === '*' || writers.has(name))
        add(i.file, {
          line: i.line,
          what: `imports ${name === '*' ? 'every function' : name} of src/db, which writes the database`,
        });
  return out;
}

/** The violations of rule `db-writer`: writes in code the page or a worker other than the engine reaches. */
export function dbWriterViolations(facts: DbWriteFacts): { file: string; line: number; message: string }[] {
  const from = reachedFromOthers(facts);
  const out: { file: string; line: number; message: string }[] = [];
  for (const [file, writes] of writesOf(facts, writingFunctions(facts.dbFunctions))) {
    const start = from.get(file);
    if (!start) continue;
    const readOnly = DB_READ_CONNECTIONS.has(file) && writes.every((w) => w.what.startsWith('opens'));
    if (readOnly) continue;
    const where =
      layerOf(file) === 'app'
        ? 'in page code'
        : start === file
          ? 'in a worker other than the engine'
          : `in code ${start} runs`;
    for (const w of writes)
      out.push({ file, line: w.line, message: `${w.what} ${where} (only ${DB_WRITER_ENTRY} may)` });
  }
  return out;
}
