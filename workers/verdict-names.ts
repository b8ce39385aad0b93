/**
 * The names a verdict's panel shows, sent with the verdict (`caseVerdict`): every op and
 * variable it names — its op, the label's op, the path, the runners-up, the writers of the
 * quoted texts, the support curve's ops — so the panel's first frame shows names, never ids.
 */
import { type OpSummary, opSummary, type TraceGraph } from '../src/core/graph/index.ts';
import type { EvaluatedCase } from './evaluation.ts';

/** A variable as the panel names it: its full name and version. */
export interface VarName {
  id: string;
  name: string;
  version: number;
}

/** The ops and variables a verdict names, named from its trace. */
export interface VerdictNames {
  ops: OpSummary[];
  variables: VarName[];
}

/** The ids of the ops and variables `v` names (each once). */
export function verdictIds(v: EvaluatedCase): { ops: string[]; vars: string[] } {
  const ops = new Set<string>();
  const vars = new Set<string>();
  const add = (set: Set<string>, id: string | null | undefined) => {
    if (id) set.add(id);
  };
  add(ops, v.predicted_op);
  add(ops, v.label_op);
  for (const step of v.path) {
    add(ops, step.op_id);
    add(vars, step.var_id);
  }
  const g = v.grounds;
  for (const r of g?.runners_up ?? []) add(ops, r.op_id);
  for (const q of [g?.held, g?.after]) add(ops, q?.written_by?.op_id);
  for (const s of g?.support ?? []) add(ops, s.op_id);
  return { ops: [...ops], vars: [...vars] };
}

/** The names of what `v` names, from its trace's graph (ids the trace lacks are left out). */
export function verdictNames(g: TraceGraph, v: EvaluatedCase): VerdictNames {
  const ids = verdictIds(v);
  const ops: OpSummary[] = [];
  for (const id of ids.ops) {
    const o = g.opIndex.get(id);
    if (o !== undefined) ops.push(opSummary(g, o));
  }
  const variables: VarName[] = [];
  for (const id of ids.vars) {
    const x = g.varIndex.get(id);
    if (x !== undefined) variables.push({ id, name: g.varFullName[x], version: g.vars[x].version });
  }
  return { ops, variables };
}
