/**
 * The OBS operation-block log: every op in execution order as a text block
 * (name, category, comment, metadata, its variables with values) with ids and
 * edges left out, so a model reads a flat log. Block offsets map text back to ops.
 */
import { isSentinelOp, isSentinelVar, opMetadata, type TraceGraph } from './graph.ts';
import { opStructure } from './queries.ts';

/** One op's block in the OBS log: the op index and its `[start, end)` character range in the log text. */
export interface ObsBlock {
  op: number;
  start: number;
  end: number;
}

/** The OBS log: its text and the blocks in it, in log order. */
export interface ObsLog {
  text: string;
  blocks: ObsBlock[];
}

/**
 * One op's OBS block: a numbered header (name, category, created_at), comment, metadata and its input,
 * intermediate and output variables with values; sentinels left out.
 */
function renderObsBlock(g: TraceGraph, op: number, blockNumber: number): string {
  const rec = g.ops[op];
  const lines = [
    `=== Operation block ${blockNumber}: ${g.opName[op] || '(unnamed)'} [${g.opCategory[op]}] at ${g.opCreatedAt[op]}`,
  ];
  if (rec.comment) lines.push(`comment: ${rec.comment}`);
  const meta = opMetadata(g, op);
  if (Object.keys(meta).length > 0) lines.push(`metadata: ${JSON.stringify(meta)}`);
  const s = opStructure(g, op);
  const section = (title: string, vars: number[]) => {
    const shown = vars.filter((v) => !isSentinelVar(g, v));
    if (shown.length === 0) return;
    lines.push(`${title}:`);
    for (const v of shown)
      lines.push(
        `- ${g.varFullName[v]} (${g.varCategory[v]}, version ${g.vars[v].version}): ${g.varValue[v]}`,
      );
  };
  section('inputs', s.inputs);
  section('intermediates', s.intermediates);
  section('outputs', s.outputs);
  return lines.join('\n');
}

/**
 * Ops sorted by (created_at, op_id), as the paper's OBS orders blocks (`g.opOrder` breaks
 * created_at ties by file order instead).
 */
export function opOrderByIdTies(g: TraceGraph): Int32Array {
  const order = Array.from(g.opOrder);
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  order.sort((a, b) => cmp(g.opCreatedAt[a], g.opCreatedAt[b]) || cmp(g.opId[a], g.opId[b]));
  return Int32Array.from(order);
}

/** Sentinel ops are left out: they carry no work of the memory system. `order`: default execution order. */
export function renderObsLog(g: TraceGraph, order: ArrayLike<number> = g.opOrder): ObsLog {
  const parts: string[] = [];
  const blocks: ObsBlock[] = [];
  let offset = 0;
  let n = 0;
  for (const op of Array.from(order)) {
    if (isSentinelOp(g, op)) continue;
    const text = renderObsBlock(g, op, ++n);
    blocks.push({ op, start: offset, end: offset + text.length });
    parts.push(text);
    offset += text.length + 2;
  }
  return { text: parts.join('\n\n'), blocks };
}

/** The op whose block contains a character offset of the log (binary search). */
export function blockAt(log: ObsLog, offset: number): ObsBlock | undefined {
  let lo = 0;
  let hi = log.blocks.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const b = log.blocks[mid];
    if (offset < b.start) hi = mid - 1;
    else if (offset > b.end) lo = mid + 1;
    else return b;
  }
  return undefined;
}
