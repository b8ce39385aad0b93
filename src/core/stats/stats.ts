/** Counts of a trace, as `memtrace stats --json` prints them. Sentinels count like any record. */
import { listCases } from '../cases/index.ts';
import type { TraceGraph } from '../graph/index.ts';
import { isConversationMessage } from '../trace/index.ts';

/**
 * Counts of a trace's records, messages and failed questions, and of variables and ops per category (most
 * frequent first).
 */
export interface TraceStats {
  sessions: number;
  nodes: number;
  operations: number;
  edges: number;
  annotations: number;
  messages: number;
  failed_questions: number;
  nodes_by_category: Record<string, number>;
  operations_by_category: Record<string, number>;
}

function countBy(keys: string[]): Record<string, number> {
  const m = new Map<string, number>();
  for (const k of keys) m.set(k, (m.get(k) ?? 0) + 1);
  // fromEntries defines own properties: a category named "__proto__" stays a count.
  return Object.fromEntries([...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)));
}

/** The counts of a trace (`memtrace stats --json`): records as the file lists them, sentinels included. */
export function traceStats(g: TraceGraph): TraceStats {
  const data = g.doc.data;
  const len = (v: unknown) => (Array.isArray(v) ? v.length : 0);
  return {
    sessions: len(data.sessions),
    nodes: len(data.nodes),
    operations: len(data.operations),
    edges: len(data.edges),
    annotations: len(data.annotations),
    messages: g.varCategory.filter(isConversationMessage).length,
    failed_questions: listCases(g).filter((c) => c.failed).length,
    nodes_by_category: countBy(g.varCategory),
    operations_by_category: countBy(g.opCategory),
  };
}
