/**
 * The records of the paper's released tools, read and written as they are:
 * - `run_error_attribution.py` writes `{split, sampled_graph_paths, results: [record…], metrics}`;
 *   a record is the case's annotation (`query_id`, `query`, `golden_answers`, …) plus
 *   `graph_path`, `error_attribution_result: {error_type, op_id, reason}` and, when labelled,
 *   `is_error_type_correct` / `is_op_id_correct`;
 * - `generate_report.py` reads a JSON list of such records and writes
 *   `error_analysis_report.json` = `{report}`.
 * Attribution files of this project (`memtrace attribute --json`, `memtrace bench --out`) are
 * read too, so `memtrace report --attributions` takes any of them.
 */

import { maxOf } from '../arrays.ts';
import type { TraceCase } from '../cases/index.ts';
import { isSentinelVar, opVariables, type TraceGraph } from '../graph/index.ts';
import { ERROR_TYPES, findJsonSyntaxError, isErrorType } from '../trace/index.ts';
import type { AttributedInput } from './case-facts.ts';

/** `error_attribution_result` of a record (the paper's `ErrorAttributionPrediction`, plus our method). */
export interface MemtraceAttributionResult {
  error_type: string;
  op_id: string;
  reason: string;
  /** Which engine wrote it (ours; the paper's tools ignore unknown keys). */
  method?: string;
}

/**
 * One record of `run_error_attribution.py`'s results: the case's annotation, the graph path, the
 * attribution and, when labelled, whether it was right.
 */
export interface MemtraceRecord {
  query_id: string;
  query: string;
  golden_answers: string[];
  golden_answers_id: string | null;
  prediction: string | null;
  prediction_id: string | null;
  source_evidence_ids: string[];
  graph_path: string;
  error_attribution_result: MemtraceAttributionResult;
  final_error_type?: string;
  final_op_id?: string | null;
  is_error_type_correct?: boolean;
  is_op_id_correct?: boolean;
  [key: string]: unknown;
}

/** A whole `run_error_attribution.py` results file: split, sampled graphs, records and the metrics block. */
export interface MemtraceResults {
  split: string | null;
  sampled_graph_paths: string[];
  results: MemtraceRecord[];
  metrics: {
    total_cases: number;
    /** Over the labelled cases; null when none is labelled. */
    error_type_prediction_accuracy: number | null;
    operation_identifier_prediction_accuracy: number | null;
    labelled_cases: number;
    cases_by_graph: Record<string, number>;
    error_attribution_cost: { input_tokens: number; output_tokens: number; minutes: number };
    /** Failed cases where no decisive memory error was found: the paper's record has no way to say so, so they are left out and listed here. */
    no_decisive_error: { graph_path: string; query_id: string }[];
  };
}

/** The ids of the judge op's golden-answers and prediction variables. */
function judgedIds(g: TraceGraph, c: TraceCase): { golden: string | null; prediction: string | null } {
  const op = c.judgeOpId ? g.opIndex.get(c.judgeOpId) : undefined;
  if (op === undefined) return { golden: null, prediction: null };
  const vars = opVariables(g, op).filter((v) => !isSentinelVar(g, v));
  const pick = (cls: string) => {
    const v = vars.find((x) => g.vars[x].class_name === cls);
    return v === undefined ? null : g.varId[v];
  };
  return { golden: pick('golden_answers'), prediction: pick('prediction') };
}

/** One result record of an attributed case, as `run_error_attribution.py` writes it. */
export function memtraceRecord(
  g: TraceGraph,
  c: TraceCase,
  a: AttributedInput & { error_type: string; op_id: string },
  graphPath: string,
): MemtraceRecord {
  const annotations = Array.isArray(g.doc.data.annotations) ? g.doc.data.annotations : [];
  const ann = c.label ? annotations[c.label.annotationIndex] : undefined;
  const ids = judgedIds(g, c);
  const base: Record<string, unknown> = ann && typeof ann === 'object' ? structuredClone(ann) : {};
  const record: MemtraceRecord = {
    ...base,
    query_id: c.queryId,
    query: c.question,
    golden_answers: c.goldenAnswers,
    golden_answers_id: ids.golden,
    prediction: c.prediction,
    prediction_id: ids.prediction,
    source_evidence_ids: c.evidenceIds,
    graph_path: graphPath,
    error_attribution_result: {
      error_type: a.error_type,
      op_id: a.op_id,
      reason: a.reason,
      method: a.method,
    },
  };
  if (c.label) {
    record.final_error_type = c.label.errorType;
    record.final_op_id = c.label.opId;
    record.is_error_type_correct = a.error_type === c.label.errorType;
    record.is_op_id_correct = c.label.opId !== null && a.op_id === c.label.opId;
  }
  return record;
}

/** The whole results file. */
export function memtraceResults(
  records: MemtraceRecord[],
  extra: {
    split?: string | null;
    cost?: { input_tokens: number; output_tokens: number; seconds: number };
    noDecisiveError?: { graph_path: string; query_id: string }[];
  } = {},
): MemtraceResults {
  const labelled = records.filter((r) => typeof r.is_error_type_correct === 'boolean');
  const byGraph: Record<string, number> = {};
  for (const r of records) byGraph[r.graph_path] = (byGraph[r.graph_path] ?? 0) + 1;
  return {
    split: extra.split ?? null,
    sampled_graph_paths: Object.keys(byGraph).sort(),
    results: records,
    metrics: {
      total_cases: records.length,
      error_type_prediction_accuracy: labelled.length
        ? labelled.filter((r) => r.is_error_type_correct).length / labelled.length
        : null,
      operation_identifier_prediction_accuracy: labelled.length
        ? labelled.filter((r) => r.is_op_id_correct).length / labelled.length
        : null,
      labelled_cases: labelled.length,
      cases_by_graph: byGraph,
      error_attribution_cost: {
        input_tokens: extra.cost?.input_tokens ?? 0,
        output_tokens: extra.cost?.output_tokens ?? 0,
        minutes: (extra.cost?.seconds ?? 0) / 60,
      },
      no_decisive_error: extra.noDecisiveError ?? [],
    },
  };
}

/** An attribution read from a file, before it is matched to its graph. */
export interface AttributionRecord extends AttributedInput {
  /** The graph file the record names (paper: `graph_path`; bench: `file`), if any. */
  graph_path: string | null;
  graph_id: string | null;
  query_id: string;
  /** Where in the file the record is, for messages (`results[3]`). */
  place: string;
}

/** A file's content is not an attribution file we can read; the message names the file and the place. */
export class AttributionFileError extends Error {}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function errorTypeOf(v: unknown, file: string, place: string): string | null {
  if (v === null || v === undefined || v === 'none') return null;
  if (!isErrorType(v))
    throw new AttributionFileError(
      `${file}: ${place}: error type ${JSON.stringify(v).slice(0, 60)} is not one of ${ERROR_TYPES.join(', ')}`,
    );
  return v;
}

function need(v: unknown, file: string, place: string): string {
  if (typeof v !== 'string' || v === '')
    throw new AttributionFileError(`${file}: ${place} is missing or not a string`);
  return v;
}

/** A record of the paper's results (or of a generate_report input list). */
function fromPaper(r: Obj, file: string, place: string): AttributionRecord {
  const res = r.error_attribution_result;
  if (!isObj(res))
    throw new AttributionFileError(`${file}: ${place}.error_attribution_result is missing or not an object`);
  const type = errorTypeOf(res.error_type, file, `${place}.error_attribution_result.error_type`);
  return {
    graph_path: str(r.graph_path),
    graph_id: str(r.graph_id),
    query_id: need(r.query_id, file, `${place}.query_id`),
    error_type: type,
    op_id: type === null ? null : need(res.op_id, file, `${place}.error_attribution_result.op_id`),
    reason: str(res.reason) ?? '',
    method: str(res.method) ?? 'memtrace-file',
    place,
  };
}

/** A line of `memtrace attribute --json` (or a case of `memtrace bench --out`). */
function fromOurs(r: Obj, file: string, place: string): AttributionRecord {
  const bench = 'predicted_type' in r || 'predicted_op' in r;
  const type = errorTypeOf(
    bench ? r.predicted_type : r.error_type,
    file,
    `${place}.${bench ? 'predicted_type' : 'error_type'}`,
  );
  const op = bench ? r.predicted_op : r.op_id;
  return {
    graph_path: str(r.file),
    graph_id: str(r.graph_id) ?? str(r.trace_id),
    query_id: need(r.query_id, file, `${place}.query_id`),
    error_type: type,
    op_id: type === null ? null : need(op, file, `${place}.${bench ? 'predicted_op' : 'op_id'}`),
    reason: str(r.reason) ?? '',
    method: str(r.method) ?? (bench ? 'bench-file' : 'attribute-file'),
    place,
  };
}

/**
 * Reads an attribution file: the paper's `{results: […]}` or list of records,
 * `memtrace attribute --json` output, or `memtrace bench --out` results.
 */
export function parseAttributionFile(text: string, file: string): AttributionRecord[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    const at = findJsonSyntaxError(text);
    throw new AttributionFileError(
      at ? `${file}:${at.line}:${at.column}: ${at.message}` : `${file}: not JSON (${(e as Error).message})`,
    );
  }
  let list: unknown[];
  let prefix: string;
  if (Array.isArray(data)) {
    list = data;
    prefix = '';
  } else if (isObj(data) && Array.isArray(data.results)) {
    list = data.results;
    prefix = 'results';
  } else if (isObj(data) && Array.isArray(data.cases)) {
    list = data.cases;
    prefix = 'cases';
  } else
    throw new AttributionFileError(
      `${file}: not an attribution file (expected {results: [...]} from the paper's tools, a list from memtrace attribute --json, or {cases: [...]} from memtrace bench --out)`,
    );
  return list.map((r, i) => {
    const place = `${prefix}[${i}]`;
    if (!isObj(r)) throw new AttributionFileError(`${file}: ${place} is not an object`);
    return 'error_attribution_result' in r ? fromPaper(r, file, place) : fromOurs(r, file, place);
  });
}

/** The paper's `error_analysis_report.json`. */
export function errorAnalysisReportJson(text: string): { report: string } {
  return { report: text };
}

/** Reads `error_analysis_report.json` (`{report}`) as written by the paper's `generate_report.py`. */
export function parseErrorAnalysisReport(text: string, file: string): string {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    const at = findJsonSyntaxError(text);
    throw new AttributionFileError(
      at ? `${file}:${at.line}:${at.column}: ${at.message}` : `${file}: not JSON (${(e as Error).message})`,
    );
  }
  if (!isObj(data) || typeof data.report !== 'string')
    throw new AttributionFileError(`${file}: report is missing or not a string (expected {"report": "..."})`);
  return data.report;
}

/** A graph an attribution record may belong to. */
export interface GraphKey {
  /** The path it was read from (or the stored file name / path in the app). */
  path: string;
  graphId: string;
  /** MemTraceBench file name (`metadata.memtracebench_graph_filename`), if any. */
  benchName?: string | null;
  queryIds: ReadonlySet<string>;
}

function segments(p: string): string[] {
  return p.split(/[\\/]+/).filter((s) => s !== '' && s !== '.');
}

/** How many trailing path segments two paths share. */
function sharedTail(a: string, b: string): number {
  const x = segments(a);
  const y = segments(b);
  let k = 0;
  while (k < x.length && k < y.length && x[x.length - 1 - k] === y[y.length - 1 - k]) k++;
  return k;
}

/**
 * The graph of each record: by graph id, else by the longest shared tail of the paths
 * (the paper writes `<dataset dir>/<split>/<file>`), else — when the record names no
 * graph — the only graph holding its query id. Throws with the record's place when no
 * graph or several fit equally.
 */
export function matchRecords(records: AttributionRecord[], graphs: GraphKey[], file: string): number[] {
  return records.map((r) => {
    let candidates = graphs.map((_, i) => i).filter((i) => graphs[i].queryIds.has(r.query_id));
    if (r.graph_id) {
      const byId = candidates.filter((i) => graphs[i].graphId === r.graph_id);
      if (byId.length === 1) return byId[0];
      if (byId.length > 1) candidates = byId;
    }
    if (r.graph_path) {
      const score = (i: number) =>
        Math.max(
          sharedTail(r.graph_path!, graphs[i].path),
          graphs[i].benchName ? sharedTail(r.graph_path!, graphs[i].benchName!) : 0,
        );
      const best = maxOf(candidates.map(score), 0);
      const top = candidates.filter((i) => score(i) === best && best > 0);
      if (top.length === 1) return top[0];
      if (top.length > 1)
        throw new AttributionFileError(
          `${file}: ${r.place}: graph_path "${r.graph_path}" fits ${top.length} of the given graphs equally (${top
            .slice(0, 3)
            .map((i) => graphs[i].path)
            .join(', ')})`,
        );
      throw new AttributionFileError(
        `${file}: ${r.place}: no given graph matches graph_path "${r.graph_path}" with question ${r.query_id}`,
      );
    }
    if (candidates.length === 1) return candidates[0];
    throw new AttributionFileError(
      candidates.length === 0
        ? `${file}: ${r.place}: no given graph has the question ${r.query_id}`
        : `${file}: ${r.place}: ${candidates.length} given graphs have the question ${r.query_id}; the record names no graph (add "file" or "graph_path")`,
    );
  });
}
