/**
 * Text renderings the paper's agents read: one variable's operations with each
 * op's whole subgraph (the MemTrace "explore" view), and single op subgraphs.
 */
import { isSentinelVar, opMetadata, row, type TraceGraph } from './graph.ts';
import { DEFAULT_PAGE_CHARS, type Page, pageOf } from './paging.ts';
import { type OpStructure, opStructure, opsTouching, roleOf } from './queries.ts';

/** `preview` shows value lengths only; `full` shows the values. */
export type RenderMode = 'preview' | 'full';

function varLine(g: TraceGraph, v: number, mode: RenderMode, role?: string): string {
  const rec = g.vars[v];
  const head = `- ${g.varId[v]} [${g.varCategory[v]}]${role ? ` (${role})` : ''}${rec.comment ? ` — ${rec.comment}` : ''}`;
  const value = g.varValue[v];
  if (mode === 'preview') return `${head} (value: ${value.length} chars)`;
  return `${head}\n  value: ${value}`;
}

/** The subgraph of one op: its variables (with values in full mode) and its edges. */
export function renderOpSubgraph(
  g: TraceGraph,
  op: number,
  mode: RenderMode = 'full',
  s = opStructure(g, op),
): string {
  const lines: string[] = [];
  const section = (title: string, vars: number[], role: string) => {
    if (vars.length === 0) return;
    lines.push(`${title}:`);
    for (const v of vars) if (!isSentinelVar(g, v)) lines.push(varLine(g, v, mode, role));
  };
  section('inputs', s.inputs, 'input');
  section('intermediates', s.intermediates, 'intermediate');
  section('outputs', s.outputs, 'output');
  lines.push('edges:');
  for (const e of row(g.opEdges, op)) lines.push(`  ${g.varId[g.edgeSrc[e]]} -> ${g.varId[g.edgeDst[e]]}`);
  return lines.join('\n');
}

/**
 * An op's header lines for the agents: op_id, name, category, created_at, and comment and metadata when
 * present.
 */
export function renderOpHeader(g: TraceGraph, op: number): string {
  const rec = g.ops[op];
  const meta = opMetadata(g, op);
  const lines = [
    `op_id: ${g.opId[op]}`,
    `name: ${g.opName[op] || '(unnamed)'}`,
    `category: ${g.opCategory[op]}`,
    `created_at: ${g.opCreatedAt[op]}`,
  ];
  if (rec.comment) lines.push(`comment: ${rec.comment}`);
  if (Object.keys(meta).length > 0) lines.push(`metadata: ${JSON.stringify(meta)}`);
  return lines.join('\n');
}

/** Direct successors of v inside op: targets of v's edges there. */
function successorsIn(g: TraceGraph, op: number, v: number): number[] {
  const out = new Set<number>();
  for (const e of row(g.varOutEdges, v)) if (g.edgeOp[e] === op) out.add(g.edgeDst[e]);
  return [...out];
}

function renderOpForVariable(
  g: TraceGraph,
  op: number,
  v: number,
  mode: RenderMode,
  k: number,
  n: number,
): string {
  const s: OpStructure = opStructure(g, op);
  const succ = successorsIn(g, op, v).map((w) => g.varId[w]);
  const leaves = s.outputs.filter((w) => !isSentinelVar(g, w)).map((w) => g.varId[w]);
  return [
    `## Operation ${k}/${n}`,
    renderOpHeader(g, op),
    `role of ${g.varId[v]}: ${roleOf(s, v) ?? 'none'}`,
    `direct successors: ${succ.length ? succ.join(', ') : '(none)'}`,
    `leaf variables: ${leaves.length ? leaves.join(', ') : '(none)'}`,
    renderOpSubgraph(g, op, mode, s),
  ].join('\n');
}

/** Every op touching v, in execution order, each with its whole subgraph; paged by characters. */
export function renderVariableView(
  g: TraceGraph,
  v: number,
  options: { mode?: RenderMode; page?: number; pageChars?: number } = {},
): Page {
  const mode = options.mode ?? 'preview';
  const ops = opsTouching(g, v);
  const parts = [
    `# Variable ${g.varId[v]} [${g.varCategory[v]}] created_at ${g.varCreatedAt[v]}`,
    mode === 'full' ? `value: ${g.varValue[v]}` : `value: ${g.varValue[v].length} chars`,
    `${ops.length} operation(s) touch it.`,
  ];
  for (const [k, op] of ops.entries()) parts.push(renderOpForVariable(g, op, v, mode, k + 1, ops.length));
  return pageOf(parts.join('\n\n'), options.page ?? 0, options.pageChars ?? DEFAULT_PAGE_CHARS);
}
