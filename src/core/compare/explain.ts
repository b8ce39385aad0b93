/**
 * What a first divergence is, in words a person checks at a glance: the two ops by name,
 * kind, step and session, and what differs between them — a prompt (a `prompt`-category
 * input, by its name), a parameter (a key of the op's metadata, such as `top_k`), a data
 * input or an output — each with its text in both runs and a line diff. Variables pair by
 * name; those left over pair in order (content-named values have a name per value).
 */
import { isPrompt } from '../attribution/index.ts';
import { isSentinelVar, opMetadata, opStructure, opSummary, type TraceGraph } from '../graph/index.ts';
import { type DiffLine, diffLines } from '../text/index.ts';
import { readableValue } from '../trace/index.ts';

/** One side's op as people name it. */
export interface DivergentOp {
  op_id: string;
  name: string;
  /** The op's category (its kind). */
  category: string;
  /** 1-based position in the run's execution order. */
  step: number;
  session_id: string;
  /** The session's name when the trace gives one. */
  session_name: string | null;
  /** The op's own comment (e.g. "UPDATE mem-6"). */
  comment: string | null;
}

/** What differs between the two ops: a prompt, a parameter, a data input or an output. */
export interface Difference {
  part: 'prompt' | 'parameter' | 'input' | 'output';
  /** The variable's name (a prompt's name), or the metadata key of a parameter. */
  name: string;
  /** The text in run A (null: A has none); long texts are cut to `TEXT_CHARS`. */
  a: string | null;
  b: string | null;
  /** Line diff from A to B: changed lines with `DIFF_CONTEXT` lines around them. */
  diff: DiffLine[];
  /** Lines of the diff left out (beyond `DIFF_LINES`, or unchanged runs far from a change). */
  diff_omitted: number;
}

/** Most characters of a text kept in `a` / `b`. */
export const TEXT_CHARS = 4000;
/** Most diff lines kept per difference. */
export const DIFF_LINES = 120;
/** Unchanged lines kept around each changed line of a difference's diff. */
export const DIFF_CONTEXT = 2;
/** Most differences listed per divergence (a search picking other units lists each). */
export const MAX_DIFFERENCES = 12;

/** An op of a run as people name it. */
export function divergentOp(g: TraceGraph, o: number): DivergentOp {
  const s = opSummary(g, o);
  return {
    op_id: s.id,
    name: s.name,
    category: s.category,
    step: s.rank + 1,
    session_id: s.session,
    session_name: s.sessionName,
    comment: s.comment,
  };
}

/** Changed lines with a little context; the rest counted as omitted. */
function compactDiff(lines: DiffLine[]): { diff: DiffLine[]; omitted: number } {
  const keep = new Uint8Array(lines.length);
  lines.forEach((l, i) => {
    if (l.kind === 'same') return;
    for (let k = Math.max(0, i - DIFF_CONTEXT); k <= Math.min(lines.length - 1, i + DIFF_CONTEXT); k++)
      keep[k] = 1;
  });
  const kept = lines.filter((_, i) => keep[i]);
  const diff = kept.slice(0, DIFF_LINES);
  return { diff, omitted: lines.length - diff.length };
}

const cut = (t: string | null) => (t === null || t.length <= TEXT_CHARS ? t : `${t.slice(0, TEXT_CHARS)}…`);

function difference(part: Difference['part'], name: string, a: string | null, b: string | null): Difference {
  // A value one side lacks is all removed (only in A) or all added (only in B), with no blank line opposite.
  const lines: DiffLine[] =
    a === null
      ? (b ?? '').split('\n').map((text) => ({ kind: 'add', text }))
      : b === null
        ? a.split('\n').map((text) => ({ kind: 'del', text }))
        : diffLines(a, b).lines;
  const { diff, omitted } = compactDiff(lines);
  return { part, name, a: cut(a), b: cut(b), diff, diff_omitted: omitted };
}

/** A variable's name as people read it: a content-named value (`list:<sha1>`) by its class or category. */
function varLabel(g: TraceGraph, v: number): string {
  const name = String(g.vars[v].name);
  if (!/^[\w.]+:[0-9a-f]{32,}$/.test(name)) return name;
  const cls = g.vars[v].class_name;
  return typeof cls === 'string' && cls ? cls : g.varCategory[v];
}

interface Side {
  g: TraceGraph;
  vars: number[];
}

/** Pairs variables of the two ops by name, then the rest in order; differing pairs become differences. */
function varDifferences(part: Difference['part'], a: Side, b: Side): Difference[] {
  const name = (g: TraceGraph, v: number) => String(g.vars[v].name);
  const text = (g: TraceGraph, v: number) => readableValue(g.varValue[v]);
  const restB = [...b.vars];
  const pairs: [number | null, number | null][] = [];
  const unpairedA: number[] = [];
  for (const va of a.vars) {
    const k = restB.findIndex((vb) => name(b.g, vb) === name(a.g, va));
    if (k >= 0) pairs.push([va, restB.splice(k, 1)[0]]);
    else unpairedA.push(va);
  }
  unpairedA.forEach((va, i) => {
    pairs.push([va, restB[i] ?? null]);
  });
  for (const vb of restB.slice(unpairedA.length)) pairs.push([null, vb]);
  const out: Difference[] = [];
  for (const [va, vb] of pairs) {
    const ta = va === null ? null : a.g.varValue[va];
    const tb = vb === null ? null : b.g.varValue[vb];
    if (ta === tb) continue;
    const la = va === null ? null : varLabel(a.g, va);
    const lb = vb === null ? null : varLabel(b.g, vb);
    const label = la !== null && lb !== null && la !== lb ? `${la} / ${lb}` : (la ?? lb ?? '');
    out.push(difference(part, label, va === null ? null : text(a.g, va), vb === null ? null : text(b.g, vb)));
  }
  return out;
}

/** Metadata keys whose values differ between the two ops (parameters such as `top_k`). */
function parameterDifferences(ga: TraceGraph, oa: number, gb: TraceGraph, ob: number): Difference[] {
  const ma = opMetadata(ga, oa);
  const mb = opMetadata(gb, ob);
  const keys = [...new Set([...Object.keys(ma), ...Object.keys(mb)])].sort();
  const show = (x: unknown) =>
    x === undefined ? null : typeof x === 'string' ? x : JSON.stringify(x, null, 2);
  return keys
    .filter((k) => JSON.stringify(ma[k]) !== JSON.stringify(mb[k]))
    .map((k) => difference('parameter', k, show(ma[k]), show(mb[k])));
}

/**
 * The two ops of a divergence, named, and what differs between them: prompts, parameters,
 * outputs, then data inputs (at most `MAX_DIFFERENCES`).
 */
export function explainDivergence(
  ga: TraceGraph,
  oa: number,
  gb: TraceGraph,
  ob: number,
): { ops: { a: DivergentOp; b: DivergentOp }; differences: Difference[] } {
  const parts = (g: TraceGraph, o: number) => {
    const s = opStructure(g, o);
    const real = (v: number) => !isSentinelVar(g, v);
    const inputs = s.inputs.filter(real);
    return {
      prompts: inputs.filter((v) => isPrompt(g, v)),
      data: inputs.filter((v) => !isPrompt(g, v)),
      outputs: s.outputs.filter(real),
    };
  };
  const pa = parts(ga, oa);
  const pb = parts(gb, ob);
  const differences = [
    ...varDifferences('prompt', { g: ga, vars: pa.prompts }, { g: gb, vars: pb.prompts }),
    ...parameterDifferences(ga, oa, gb, ob),
    ...varDifferences('output', { g: ga, vars: pa.outputs }, { g: gb, vars: pb.outputs }),
    ...varDifferences('input', { g: ga, vars: pa.data }, { g: gb, vars: pb.data }),
  ].slice(0, MAX_DIFFERENCES);
  return { ops: { a: divergentOp(ga, oa), b: divergentOp(gb, ob) }, differences };
}
