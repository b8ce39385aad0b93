/** The labels a graph file carries in `data.annotations` (MemTraceBench), as records. */
import type { Annotation, TraceDocument } from '../trace/index.ts';
import { FILE_SOURCE, type LabelContext, type LabelRecord } from './record.ts';

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The MemTraceBench context fields of an annotation-like object, when well-typed. */
export function contextOf(a: Record<string, unknown>): LabelContext | undefined {
  const out: LabelContext = {};
  if (typeof a.query === 'string') out.query = a.query;
  const gold = a.golden_answers;
  if (typeof gold === 'string') out.golden_answers = gold;
  else if (Array.isArray(gold) && gold.every((g) => typeof g === 'string')) out.golden_answers = [...gold];
  if (typeof a.prediction === 'string') out.prediction = a.prediction;
  const ev = a.source_evidence_ids;
  if (Array.isArray(ev) && ev.every((e) => typeof e === 'string')) out.source_evidence_ids = [...ev];
  return Object.keys(out).length ? out : undefined;
}

/**
 * Every well-formed annotation of the document (a string `query_id` and `final_error_type`),
 * in file order: `label_source` when present (else `file`), `annotator` when present.
 * Malformed entries are the validator's business (reported as warnings there) and skipped here.
 */
export function fileLabels(doc: Pick<TraceDocument, 'graph_id' | 'data'>): LabelRecord[] {
  const list: unknown = doc.data?.annotations;
  if (!Array.isArray(list)) return [];
  const graphId = typeof doc.graph_id === 'string' ? doc.graph_id : '';
  const out: LabelRecord[] = [];
  for (const item of list as unknown[]) {
    if (!item || typeof item !== 'object' || Array.isArray(item)) continue;
    const a = item as Annotation;
    const queryId = str(a.query_id);
    const errorType = str(a.final_error_type);
    if (!queryId || !errorType) continue;
    const context = contextOf(a);
    out.push({
      graphId,
      queryId,
      errorType,
      opId: str(a.final_op_id) ?? null,
      reason: str(a.reason) ?? '',
      source: str(a.label_source) || FILE_SOURCE,
      annotator: str(a.annotator) ?? '',
      createdAt: str(a.created_at) ?? '',
      origin: 'file',
      ...(context ? { context } : {}),
    });
  }
  return out;
}
