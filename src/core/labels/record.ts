/**
 * A label is one record: who said which op caused a failure, of which type, why, and when.
 * Labels never replace each other — a correction is a new record next to the file's own —
 * so the ground truth a file came with is always there to score against.
 */

/** Where a record entered the workbench: inside a graph file, made here, or from an annotations file. */
export type LabelOrigin = 'file' | 'workbench' | 'imported';

/** `label_source` values the workbench writes itself. Files bring others (`fault-injection`, `counterfactual`, …). */
export const PERSON_SOURCE = 'person';
/** `label_source` of a label made from an LLM agent run's result. */
export const AGENT_SOURCE = 'agent';
/** `label_source` of a final decision on a disputed case; agreement leaves these out of the numbers. */
export const ADJUDICATED_SOURCE = 'adjudicated';
/** Attribution engines taking part in agreement as annotators (annotator = the method). */
export const ENGINE_SOURCE = 'engine';
/** The source of a file's annotation that names none. */
export const FILE_SOURCE = 'file';

/**
 * One label: who said which op caused a case's failure, of which type, why, when, and where the record
 * came from.
 */
export interface LabelRecord {
  /** The trace's graph_id. */
  graphId: string;
  /** The question's full_node_id. */
  queryId: string;
  errorType: string;
  /** null when the label names no single op. */
  opId: string | null;
  reason: string;
  /** `label_source`: person, agent, adjudicated, engine, fault-injection, counterfactual, file, … */
  source: string;
  /** Who labelled; '' when unknown (then the source stands for the annotator). */
  annotator: string;
  /** ISO 8601 when made here; the file's own text otherwise; '' when unknown. */
  createdAt: string;
  origin: LabelOrigin;
  /** MemTraceBench context carried into exports: query, golden_answers, prediction, source_evidence_ids. */
  context?: LabelContext;
}

/**
 * MemTraceBench's context fields of a case, carried with a label so an export is a MemTraceBench
 * annotation list too.
 */
export interface LabelContext {
  query?: string;
  golden_answers?: string[] | string;
  prediction?: string;
  source_evidence_ids?: string[];
}

/** The annotator a record counts for in agreement: its annotator, else its source. */
export function annotatorOf(l: Pick<LabelRecord, 'annotator' | 'source'>): string {
  return l.annotator.trim() || l.source || FILE_SOURCE;
}

/** The key of a labelled case: labels pair by (graph_id, query_id). */
export function caseKey(l: Pick<LabelRecord, 'graphId' | 'queryId'>): string {
  return JSON.stringify([l.graphId, l.queryId]);
}

/** Inverse of `caseKey`. */
export function splitCaseKey(key: string): { graphId: string; queryId: string } {
  const [graphId, queryId] = JSON.parse(key) as [string, string];
  return { graphId, queryId };
}

/** Whether two records say the same thing (type and op). */
export function sameVerdict(
  a: Pick<LabelRecord, 'errorType' | 'opId'>,
  b: Pick<LabelRecord, 'errorType' | 'opId'>,
) {
  return a.errorType === b.errorType && a.opId === b.opId;
}

/**
 * Records ordered oldest first: by `createdAt` (ISO strings compare in time order), ties and
 * unknown times keeping their given order. The last of an annotator's records is their label.
 */
export function oldestFirst<T extends Pick<LabelRecord, 'createdAt'>>(records: readonly T[]): T[] {
  return records
    .map((r, i) => ({ r, i }))
    .sort((x, y) => (x.r.createdAt === y.r.createdAt ? x.i - y.i : x.r.createdAt < y.r.createdAt ? -1 : 1))
    .map((x) => x.r);
}

/** Each annotator's current label per case: their newest record. */
export function latestByAnnotator<T extends LabelRecord>(records: readonly T[]): Map<string, Map<string, T>> {
  const out = new Map<string, Map<string, T>>();
  for (const r of oldestFirst(records)) {
    const k = caseKey(r);
    const byAnnotator = out.get(k) ?? new Map<string, T>();
    out.set(k, byAnnotator);
    byAnnotator.set(annotatorOf(r), r);
  }
  return out;
}
