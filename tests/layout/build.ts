/** Hand-built documents for layout tests: `v(name, version)`, `op(id, inputs, outputs)`. */
import { buildGraph, type TraceGraph } from '../../src/core/graph/index.ts';
import type {
  EdgeRecord,
  OperationRecord,
  TraceDocument,
  VariableRecord,
} from '../../src/core/trace/index.ts';

const base = { filename: 't.py', lineno: 1, metadata: {}, graph_id: 'g', user_id: null, project_id: null };

interface Spec {
  vars: { name: string; version?: number; category?: string; at?: string }[];
  ops: { id: string; at: string; category?: string; in: string[]; out: string[] }[];
}

function doc(spec: Spec): TraceDocument {
  const nodes: VariableRecord[] = spec.vars.map((v) => ({
    ...base,
    created_at: v.at ?? '2024-01-01 00:00:00.000',
    name: v.name,
    version: v.version ?? 1,
    value: `'${v.name}'`,
    class_name: null,
    comment: null,
    category: v.category ?? 'variable',
    session_id: 's',
  }));
  const operations: OperationRecord[] = spec.ops.map((o) => ({
    ...base,
    created_at: o.at,
    op_id: o.id,
    op_name: o.id,
    comment: null,
    category: o.category ?? 'operation',
    session_id: 's',
  }));
  const edges: EdgeRecord[] = [];
  for (const o of spec.ops)
    for (const s of o.in)
      for (const t of o.out)
        edges.push({
          ...base,
          created_at: o.at,
          edge_id: `e${edges.length}`,
          op_id: o.id,
          category: o.category ?? 'operation',
          source_full_node_id: s,
          target_full_node_id: t,
          comment: null,
          session_id: 's',
        });
  return {
    graph_id: 'g',
    user_id: null,
    project_id: null,
    storage_path: null,
    strict: true,
    driver_type: 'in_memory',
    created_at: '2024-01-01 00:00:00.000',
    metadata: {},
    data: { sessions: [], nodes, operations, edges },
  };
}

export function graph(spec: Spec): TraceGraph {
  return buildGraph(doc(spec));
}

/** A sentinel-bearing graph: an op with no inputs reads COMMENT:NONE@1; a link outside any op. */
export function withSentinels(): TraceGraph {
  const d = doc({
    vars: [{ name: 'a' }, { name: 'b' }, { name: 'a', version: 2 }],
    ops: [
      { id: 'op-make', at: '2024-01-01 00:00:01.000', in: ['COMMENT:NONE@1'], out: ['a@1'] },
      { id: 'op-mut', at: '2024-01-01 00:00:02.000', in: ['a@1', 'b@1'], out: ['a@2'] },
      { id: '__none_op__', at: '2024-01-01 00:00:03.000', category: 'sentinel', in: ['a@2'], out: ['b@1'] },
    ],
  });
  d.data.nodes.push({
    ...base,
    created_at: '2024-01-01 00:00:00.000',
    name: 'NONE',
    version: 1,
    value: 'NONE',
    class_name: 'COMMENT',
    comment: null,
    category: 'sentinel',
    session_id: 's',
  });
  return buildGraph(d);
}
