/**
 * Attribution evaluation inside the engine worker: the evidence-flow attributor over
 * the labelled cases of stored traces, one plain result per case, ready for
 * `summarize` (core/bench). Which labels it scores against is the person's choice (core/labels
 * `LabelChoice`): the file's own by default, or a source (adjudicated, person, …) or one annotator.
 */
import {
  type AnswerRuleFit,
  ATTRIBUTOR_VERSION,
  type Attribution,
  type EngineDeps,
  evidenceFlowEngine,
  traceJudgeFit,
} from '../src/core/attribution/index.ts';
import { scoredCase } from '../src/core/bench/index.ts';
import { listCases, type TraceCase } from '../src/core/cases/index.ts';
import { opSummary, type TraceGraph } from '../src/core/graph/index.ts';
import { caseKey, FILE_CHOICE, type LabelChoice, labelsFor } from '../src/core/labels/index.ts';
import { verdictGrounds } from '../src/core/report/index.ts';
import { corpusFromGraph, HashedNgramEmbedder, RetrievalIndex } from '../src/core/retrieval/index.ts';
import { listLabels } from '../src/db/labels.ts';
import type { EvaluatedCase } from '../src/db/runs.ts';
import type { MemtraceDb } from '../src/db/schema.ts';
import { yieldToMessages } from './abort-transfer.ts';
import type { Matching } from './matcher.ts';

export type { EvaluatedCase };

export interface EvalProgress {
  done: number;
  total: number;
  traceId: string;
  queryId: string | null;
}

export interface EvalResult {
  status: 'done' | 'cancelled';
  cases: EvaluatedCase[];
  /** Trace ids asked for that are not stored (deleted meanwhile). */
  missing: string[];
}

const indexCache = new WeakMap<TraceGraph, Promise<RetrievalIndex>>();
const denseCache = new WeakMap<TraceGraph, Promise<RetrievalIndex>>();

function cachedIndex(
  cache: WeakMap<TraceGraph, Promise<RetrievalIndex>>,
  g: TraceGraph,
  embedder: HashedNgramEmbedder | null,
): Promise<RetrievalIndex> {
  let index = cache.get(g);
  if (!index) {
    index = RetrievalIndex.build(corpusFromGraph(g, 'messages'), { embedder });
    cache.set(g, index);
    index.catch(() => cache.delete(g));
  }
  return index;
}

/**
 * Engine dependencies of a graph, as the CLI's: the messages index (BM25; with `dense`, also
 * the hashed n-gram vectors for hybrid start points — built once per graph, only when a case
 * names no evidence) and the worker's matcher (word vectors, the CLI's default).
 */
export async function depsOf(g: TraceGraph, matching?: Matching, dense = false): Promise<EngineDeps> {
  const embedder = dense ? new HashedNgramEmbedder() : null;
  const index = await cachedIndex(dense ? denseCache : indexCache, g, embedder);
  return { index, embedder, evidenceFlow: matching ? await matching.options() : undefined };
}

/**
 * Builds ahead what the first attribution of a graph needs, as `attributeOne` would on its
 * first case: the engine dependencies (the messages index; the dense one too when a case names
 * no evidence) and the trace's judge as the attributor learns it (`traceJudgeFit`, kept with
 * the graph, so every case of it reuses this one fit).
 */
export async function prepareAttribution(g: TraceGraph, matching?: Matching): Promise<AnswerRuleFit> {
  const deps = await depsOf(g, matching);
  if (listCases(g).some((c) => c.evidenceIds.length === 0)) await depsOf(g, matching, true);
  return traceJudgeFit(g, deps.evidenceFlow ?? {});
}

/** Runs evidence-flow on one case of an opened graph. */
export async function attributeOne(
  traceId: string,
  g: TraceGraph,
  c: TraceCase,
  system: string | null,
  label: { type: string; op: string | null } | null,
  matching?: Matching,
): Promise<EvaluatedCase> {
  const deps = await depsOf(g, matching, c.evidenceIds.length === 0);
  const a = await evidenceFlowEngine({ graph: g, case: c, system }, deps);
  return evaluatedCase(a, traceId, c, system, label, g);
}

/** The plain per-case result of an attribution, next to the case's label (if any), its ops named from `g`. */
export function evaluatedCase(
  a: Attribution,
  traceId: string,
  c: TraceCase,
  system: string | null,
  label: { type: string; op: string | null } | null,
  g: TraceGraph,
): EvaluatedCase {
  const ops = [label?.op, a.op_id]
    .map((id) => (id ? g.opIndex.get(id) : undefined))
    .filter((o, i, all): o is number => o !== undefined && all.indexOf(o) === i)
    .map((o) => opSummary(g, o));
  return {
    method: a.method,
    trace_id: traceId,
    query_id: c.queryId,
    question: c.question,
    ...scoredCase(a, system, label && { errorType: label.type, opId: label.op }),
    reason: a.reason,
    path: a.path,
    ops,
    grounds: verdictGrounds(g, a),
    // Evidence-flow's verdicts carry its version: a later attributor re-attributes them or marks them stale.
    ...(a.method === 'evidence' ? { attributor_version: ATTRIBUTOR_VERSION } : {}),
  };
}

/** A case of an opened graph by query id (passed questions included). */
export function findCase(g: TraceGraph, queryId: string): TraceCase | undefined {
  return listCases(g, { includePassed: true }).find((c) => c.queryId === queryId);
}

interface LabelledRow {
  queryId: string;
  system: string | null;
  label: { type: string; op: string | null };
}

/** Evaluations, one at a time; aborting a run's `signal` stops it after its current case. */
export class Evaluator {
  #running = false;

  constructor(
    private readonly db: MemtraceDb,
    private readonly open: (traceId: string) => Promise<TraceGraph>,
    private readonly matching?: Matching,
  ) {}

  async evaluate(
    traceIds: string[],
    onProgress: (p: EvalProgress) => void,
    choice: LabelChoice = FILE_CHOICE,
    signal?: AbortSignal,
  ): Promise<EvalResult> {
    if (this.#running) throw new Error('an evaluation is already running');
    this.#running = true;
    try {
      const missing: string[] = [];
      const work: { traceId: string; rows: LabelledRow[] }[] = [];
      for (const traceId of traceIds) {
        if (!(await this.db.traces.get(traceId))) missing.push(traceId);
        else work.push({ traceId, rows: await this.labelledRows(traceId, choice) });
      }
      const total = work.reduce((n, w) => n + w.rows.length, 0);
      const cases: EvaluatedCase[] = [];
      onProgress({ done: 0, total, traceId: work[0]?.traceId ?? '', queryId: null });
      for (const { traceId, rows } of work) {
        if (rows.length === 0) continue;
        const g = await this.open(traceId);
        const byQuery = new Map(listCases(g, { includePassed: true }).map((c) => [c.queryId, c]));
        for (const row of rows) {
          await yieldToMessages();
          if (signal?.aborted) return { status: 'cancelled', cases, missing };
          const c = byQuery.get(row.queryId);
          if (!c) continue;
          cases.push(await attributeOne(traceId, g, c, row.system, row.label, this.matching));
          onProgress({ done: cases.length, total, traceId, queryId: row.queryId });
        }
      }
      return { status: 'done', cases, missing };
    } finally {
      this.#running = false;
    }
  }

  /** The trace's cases that have a label under the choice, in case order. */
  private async labelledRows(traceId: string, choice: LabelChoice): Promise<LabelledRow[]> {
    const labels = labelsFor(await listLabels(this.db, [traceId]), choice);
    const rows = await this.db.cases.where('traceId').equals(traceId).toArray();
    return rows
      .sort((a, b) => a.order - b.order)
      .flatMap((r) => {
        const l = labels.get(caseKey({ graphId: traceId, queryId: r.queryId }));
        return l ? [{ queryId: r.queryId, system: r.system, label: { type: l.errorType, op: l.opId } }] : [];
      });
  }
}
