/**
 * Short functions: every function in `src/` and `workers/` (`.ts` files) is at most 80 lines,
 * from its first token to its closing brace, unless a comment directly above it (or above the
 * statement that holds it) says why it must be "one piece". Nested functions count inside their
 * parent and on their own. Prints `lines file:line name` per long function, longest first, and
 * exits 1 when there is one; otherwise one ok line with the count of functions read.
 * `tsx scripts/check-function-length.ts [root]` (default: the current folder).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts, { type TS } from './layers/typescript.ts';

/** The longest a function may be, in lines. */
export const MAX_LINES = 80;
/** The folders read, relative to the root. */
const FOLDERS = ['src', 'workers'];
/** The phrase that, in a comment right above a function, allows it to be long. */
const ONE_PIECE = /one piece/i;

/** One function as measured. */
export interface FunctionLength {
  /** Its file, relative to the root. */
  file: string;
  /** The 1-based line it starts on. */
  line: number;
  name: string;
  lines: number;
  /** A comment directly above it says why it must be one piece. */
  excused: boolean;
}

function tsFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, d.name);
    if (d.isDirectory()) out.push(...tsFiles(path));
    else if (d.name.endsWith('.ts') && !d.name.endsWith('.d.ts')) out.push(path);
  }
  return out.sort();
}

type FunctionNode = TS.FunctionLikeDeclaration;

function isFunction(node: TS.Node): node is FunctionNode {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

/** The node its comment sits on: the statement, class member or property that holds it. */
function commentHost(fn: FunctionNode): TS.Node {
  let node: TS.Node = fn;
  while (
    node.parent &&
    !ts.isSourceFile(node.parent) &&
    !ts.isBlock(node.parent) &&
    !ts.isClassLike(node.parent) &&
    !ts.isStatement(node) &&
    !ts.isPropertyAssignment(node) &&
    !ts.isClassElement(node)
  )
    node = node.parent;
  return node;
}

/** The name a reader would search for: its own, its variable's or property's, else the parent's. */
function functionName(fn: FunctionNode): string {
  if (fn.name && !ts.isComputedPropertyName(fn.name)) return fn.name.getText();
  if (ts.isConstructorDeclaration(fn)) return 'constructor';
  const p = fn.parent;
  if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.name)
    return p.name.getText();
  return '(anonymous)';
}

/** A leading comment of the host (the ones right above it, no blank line between) says "one piece". */
function isExcused(fn: FunctionNode, text: string): boolean {
  for (const node of new Set([fn, commentHost(fn)])) {
    const ranges = ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [];
    let end = node.getStart();
    for (let i = ranges.length - 1; i >= 0; i--) {
      const r = ranges[i];
      if (/\n[ \t]*\r?\n/.test(text.slice(r.end, end))) break;
      if (ONE_PIECE.test(text.slice(r.pos, r.end))) return true;
      end = r.pos;
    }
  }
  return false;
}

/** Every function with a body in the `.ts` files of src/ and workers/ under root. */
export function functionLengths(rootDir: string): FunctionLength[] {
  const root = resolve(rootDir);
  const out: FunctionLength[] = [];
  for (const path of FOLDERS.flatMap((f) => tsFiles(join(root, f)))) {
    const text = readFileSync(path, 'utf8');
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
    const file = relative(root, path).split('\\').join('/');
    const visit = (node: TS.Node): void => {
      if (isFunction(node) && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        out.push({
          file,
          line: start + 1,
          name: functionName(node),
          lines: end - start + 1,
          excused: isExcused(node, text),
        });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

/** The functions over the limit without a "one piece" comment, longest first. */
export function longFunctions(all: FunctionLength[], max = MAX_LINES): FunctionLength[] {
  return all.filter((f) => f.lines > max && !f.excused).sort((a, b) => b.lines - a.lines);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = process.argv[2] ?? process.cwd();
  const all = functionLengths(root);
  if (all.length === 0) {
    console.error(
      `function length: no functions found under ${FOLDERS.map((f) => join(root, f)).join(', ')}`,
    );
    process.exit(1);
  }
  const long = longFunctions(all);
  const excused = all.filter((f) => f.lines > MAX_LINES && f.excused);
  for (const f of excused) console.log(`one piece (${f.lines} lines): ${f.file}:${f.line} ${f.name}`);
  if (long.length) {
    console.error(
      `${long.length} functions over ${MAX_LINES} lines without a "one piece" comment:\n` +
        long.map((f) => `${f.lines} ${f.file}:${f.line} ${f.name}`).join('\n'),
    );
    process.exit(1);
  }
  console.log(`function length: ok (${all.length} functions, none over ${MAX_LINES} lines unexplained)`);
}
