/**
 * The trace's own judges (a GenAI evaluation event, a Langfuse score, an OpenInference
 * evaluator, a smartcomment `llm-judge`), by the question they judged: a QA row asking the
 * same question joins that judge instead of making a second case of it.
 */
import { normalizeUnit, type OperationRecord, type TraceDocument } from '../trace/index.ts';

/** A judge op of the trace and what it reads and writes. */
export interface OwnJudge {
  op: OperationRecord;
  /** Its `query` variable (the case's query_id). */
  queryId: string;
  /** Its verdict variables (`judge_score`, `judge_response`): the golden answers are read into them. */
  verdicts: string[];
  /** It reads golden answers already (the trace's stay; the row's are not added). */
  hasGolden: boolean;
}

const VERDICT = new Set(['judge_score', 'judge_response']);

/**
 * The trace's judge ops by their question, normalised (`normalizeUnit`), the first in file
 * order for each: ops reading a `query` variable and writing a verdict (listCases' rule).
 */
export function ownJudges(doc: TraceDocument, text: (id: string) => string): Map<string, OwnJudge> {
  const classOf = new Map(doc.data.nodes.map((v) => [v.full_node_id ?? '', v.class_name ?? '']));
  const byOp = new Map<string, { query?: string; verdicts: Set<string>; golden: boolean }>();
  for (const e of doc.data.edges) {
    const j = byOp.get(e.op_id) ?? { verdicts: new Set<string>(), golden: false };
    byOp.set(e.op_id, j);
    const src = classOf.get(e.source_full_node_id);
    if (src === 'query') j.query ??= e.source_full_node_id;
    if (src === 'golden_answers') j.golden = true;
    if (VERDICT.has(classOf.get(e.target_full_node_id) ?? '')) j.verdicts.add(e.target_full_node_id);
  }
  const out = new Map<string, OwnJudge>();
  for (const op of doc.data.operations) {
    const j = byOp.get(op.op_id);
    if (!j?.query || j.verdicts.size === 0) continue;
    const key = normalizeUnit(text(j.query));
    if (!out.has(key)) out.set(key, { op, queryId: j.query, verdicts: [...j.verdicts], hasGolden: j.golden });
  }
  return out;
}
