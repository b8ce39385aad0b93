/**
 * Analysis: opens stored traces into indexed graphs (kept for the few most recent)
 * and answers the views' questions — op inspector, variable history, diffs, case
 * context, search, graph data for drawing. Runs inside the analysis worker.
 */

import { Index } from 'flexsearch';
import { listCases, type TraceCase } from '../src/core/cases/cases.ts';
import { answerOpOf, casePath } from '../src/core/cases/path.ts';
import {
  buildGraph,
  isSentinelVar,
  opMetadata,
  type TraceGraph,
  varMetadata,
} from '../src/core/graph/graph.ts';
import {
  consumersOf,
  lineageOf,
  opStructure,
  opSummary,
  opsTouching,
  producersOf,
} from '../src/core/graph/queries.ts';
import { groupByLineage, searchValues, wordSnippet } from '../src/core/graph/search.ts';
import {
  type LaneLayout,
  type LaneLayoutOptions,
  laneLayout,
  type NeighbourhoodDrawingOptions,
  neighbourhoodDrawing,
  previewText,
} from '../src/core/layout/index.ts';
import { diffLines } from '../src/core/text/diff.ts';
import { parseTraceText } from '../src/core/trace/import.ts';
import { readableValue } from '../src/core/trace/pyrepr.ts';
import type { AgentRunRow } from '../src/db/agent-runs.ts';
import { getOriginal, listTraces } from '../src/db/repo.ts';
import { latestCaseRun, listEvaluationRuns } from '../src/db/runs.ts';
import type { MemtraceDb } from '../src/db/schema.ts';
import { AgentRunner } from './agent-runs.ts';
import type {
  AgentRunEvent,
  AnalysisApi,
  CaseOverview,
  LaneLayoutProgress,
  LaneMark,
  ModelInfo,
  ModelPort,
  NeighbourhoodData,
  NeighbourhoodSeedIds,
  OpDetail,
  OpMatches,
  OpSummary,
  SearchGroup,
  SearchQuery,
  SearchResult,
  VarDetail,
  VarView,
  VersionDiff,
} from './api.ts';
import { PATH_SHOWN } from './api.ts';
import { type CompareProgress, type CompareResult, Comparer, type MemoryComparison } from './compare-runs.ts';
import {
  attributeOne,
  type EvalProgress,
  type EvalResult,
  type EvaluatedCase,
  Evaluator,
  findCase,
} from './evaluation.ts';
import { type MatcherInfo, type MatcherProgress, Matching, warmLanguage } from './matcher.ts';
import {
  type ImportedAttributions,
  type ReportProgress,
  type ReportRequest,
  ReportRunner,
  type StoredReport,
} from './report.ts';

interface Opened {
  graph: TraceGraph;
  text?: Index;
  /** Every question of the trace (passed ones too), read once. */
  cases?: TraceCase[];
  /** Evidence variable → the questions naming it. */
  evidence?: Map<number, string[]>;
}

const KEEP_OPEN = 3;
const PRETTY_LIMIT = 2_000_000;

export class AnalysisService implements AnalysisApi {
  readonly #open = new Map<string, Promise<Opened>>();
  readonly #evaluator: Evaluator;
  readonly #agents: AgentRunner;
  readonly #reports: ReportRunner;
  readonly #comparer: Comparer;

  readonly #matching: Matching;

  constructor(
    private readonly db: MemtraceDb,
    matching = new Matching(),
  ) {
    this.#matching = matching;
    this.#evaluator = new Evaluator(db, async (id) => (await this.#get(id)).graph, matching);
    this.#agents = new AgentRunner(db, async (id) => (await this.#get(id)).graph, matching);
    this.#reports = new ReportRunner(db, async (id) => (await this.#get(id)).graph, matching);
    this.#comparer = new Comparer(async (id) => (await this.#get(id)).graph);
  }

  /** Where the app serves the word-vector file (the page knows its base URL). */
  setWordVectors(url: string): void {
    this.#matching.setSource(url);
  }

  #warmed = false;

  /**
   * Loads the matcher's word vectors (once; later calls return at once), with progress, and
   * warms its language tools once — the page calls it as soon as traces are stored, so the
   * first case opened finds both ready.
   */
  async loadMatcher(onProgress?: (p: MatcherProgress) => void): Promise<MatcherInfo> {
    const info = await this.#matching.load(onProgress);
    if (!this.#warmed) {
      this.#warmed = true;
      warmLanguage();
    }
    return info;
  }

  compareTraces(
    traceA: string,
    traceB: string,
    onProgress: (p: CompareProgress) => void,
  ): Promise<CompareResult> {
    return this.#comparer.compare(traceA, traceB, onProgress);
  }

  cancelCompare(): void {
    this.#comparer.cancel();
  }

  compareMemory(
    traceA: string,
    traceB: string,
    queryA: string | null,
    queryB: string | null,
  ): Promise<MemoryComparison> {
    return this.#comparer.memoryAt(traceA, traceB, queryA, queryB);
  }

  forget(traceId: string): void {
    this.#open.delete(traceId);
  }

  /** The opened graph of a stored trace (most recent few kept). */
  async #get(traceId: string): Promise<Opened> {
    let p = this.#open.get(traceId);
    if (p) {
      this.#open.delete(traceId);
      this.#open.set(traceId, p);
      return p;
    }
    p = this.#load(traceId);
    this.#open.set(traceId, p);
    p.catch(() => this.#open.delete(traceId));
    while (this.#open.size > KEEP_OPEN) this.#open.delete(this.#open.keys().next().value as string);
    return p;
  }

  async #load(traceId: string): Promise<Opened> {
    const blob = await getOriginal(this.db, traceId);
    if (!blob) throw new Error(`trace ${traceId} is not stored`);
    const parsed = parseTraceText(await blob.text(), { file: traceId });
    if (!parsed.ok) throw new Error(`trace ${traceId} no longer parses: ${parsed.issues[0]?.message ?? ''}`);
    return { graph: buildGraph(parsed.doc) };
  }

  async caseOverview(traceId: string, queryId: string): Promise<CaseOverview> {
    const opened = await this.#get(traceId);
    const g = opened.graph;
    const c = casesOf(opened).find((x) => x.queryId === queryId);
    const evidence = (c?.evidenceIds ?? [])
      .map((id) => g.varIndex.get(id))
      .filter((v): v is number => v !== undefined)
      .map((v) => varView(g, v));
    const path = c ? casePath(g, c) : { ops: [], answerOp: -1, judgeOp: -1 };
    const labelOp = c?.label?.opId ? g.opIndex.get(c.label.opId) : undefined;
    let shown = path.ops.slice(-PATH_SHOWN);
    // A labelled op further back than what is shown stays in place (it is a cause too).
    if (labelOp !== undefined && path.ops.includes(labelOp) && !shown.includes(labelOp))
      shown = [labelOp, ...shown];
    return {
      evidence,
      path: shown.map((o) => opSummary(g, o)),
      pathTotal: path.ops.length,
      pathTruncated: shown.length < path.ops.length,
      answerOp: path.answerOp >= 0 ? opSummary(g, path.answerOp) : null,
      labelOp: labelOp === undefined ? null : opSummary(g, labelOp),
    };
  }

  async opDetail(traceId: string, opId: string): Promise<OpDetail | null> {
    const { graph: g } = await this.#get(traceId);
    const o = g.opIndex.get(opId);
    if (o === undefined) return null;
    const s = opStructure(g, o);
    const views = (vs: number[]) => vs.filter((v) => !isSentinelVar(g, v)).map((v) => varView(g, v));
    const rank = g.opRank[o];
    return {
      ...opSummary(g, o),
      metadata: JSON.stringify(opMetadata(g, o), null, 2),
      inputs: views(s.inputs),
      intermediates: views(s.intermediates),
      outputs: views(s.outputs),
      previous: rank > 0 ? opSummary(g, g.opOrder[rank - 1]) : null,
      next: rank + 1 < g.opOrder.length ? opSummary(g, g.opOrder[rank + 1]) : null,
      changes: [...s.intermediates, ...s.outputs].flatMap((v) => {
        const chain = lineageOf(g, v);
        const k = chain.indexOf(v);
        return k > 0 && !isSentinelVar(g, v) ? [versionDiff(g, chain[k - 1], v)] : [];
      }),
    };
  }

  async describeOps(traceId: string, opIds: string[]): Promise<(OpSummary | null)[]> {
    const { graph: g } = await this.#get(traceId);
    return opIds.map((id) => {
      const o = g.opIndex.get(id);
      return o === undefined ? null : opSummary(g, o);
    });
  }

  async findOps(traceId: string, query: string, limit = 100): Promise<OpMatches> {
    const { graph: g } = await this.#get(traceId);
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    const ops: OpSummary[] = [];
    let total = 0;
    for (const o of g.opOrder) {
      if (words.length && !words.every((w) => opSearchText(g, o).includes(w))) continue;
      if (total++ < limit) ops.push(opSummary(g, o));
    }
    return { ops, total };
  }

  async varDetail(traceId: string, fullNodeId: string): Promise<VarDetail | null> {
    const { graph: g } = await this.#get(traceId);
    const v = g.varIndex.get(fullNodeId);
    if (v === undefined) return null;
    const byRank = (a: number, b: number) => g.opRank[a] - g.opRank[b];
    return {
      variable: varView(g, v),
      metadata: JSON.stringify(varMetadata(g, v), null, 2),
      producers: producersOf(g, v)
        .sort(byRank)
        .map((o) => opSummary(g, o)),
      consumers: consumersOf(g, v)
        .sort(byRank)
        .map((o) => opSummary(g, o)),
      versions: Array.from(lineageOf(g, v), (w) => ({
        id: g.varId[w],
        version: g.vars[w].version,
        createdAt: g.varCreatedAt[w],
        chars: g.varValue[w].length,
      })),
    };
  }

  async diffVersions(traceId: string, from: string, to: string): Promise<VersionDiff | null> {
    const { graph: g } = await this.#get(traceId);
    const a = g.varIndex.get(from);
    const b = g.varIndex.get(to);
    if (a === undefined || b === undefined) return null;
    return versionDiff(g, a, b);
  }

  #searches = 0;

  async search(query: SearchQuery): Promise<SearchResult> {
    const t0 = performance.now();
    const run = ++this.#searches;
    const q = query.q.trim();
    const limit = query.limit ?? 200;
    const ids = query.traceIds?.length ? query.traceIds : (await listTraces(this.db)).map((t) => t.id);
    const result: SearchResult = { groups: [], variables: 0, truncated: false, traces: 0, tookMs: 0 };
    const done = () => ({ ...result, tookMs: performance.now() - t0 });
    if (!q) return done();
    if (query.regex) {
      try {
        new RegExp(q);
      } catch (e) {
        return { ...done(), error: e instanceof Error ? e.message : String(e) };
      }
    }
    for (const traceId of ids) {
      let opened: Opened;
      try {
        opened = await this.#get(traceId);
      } catch {
        continue; // deleted meanwhile or unreadable: the trace list says so
      }
      if (run !== this.#searches) return { ...done(), stale: true };
      result.traces++;
      const found = searchOne(opened, q, !!query.regex, limit + 1);
      if (found.length > limit) {
        found.length = limit;
        result.truncated = true;
      }
      result.variables += found.length;
      result.groups.push(...groupHits(traceId, opened, found));
    }
    return done();
  }

  async laneMarks(traceId: string): Promise<LaneMark[]> {
    const opened = await this.#get(traceId);
    const g = opened.graph;
    const marks: LaneMark[] = [];
    const failed = casesOf(opened).filter((c) => c.failed);
    for (const c of failed) {
      const o = answerOpOf(g, c);
      if (o >= 0) marks.push({ opId: g.opId[o], kind: 'answer', queryId: c.queryId, note: c.question });
    }
    const rows = await this.db.cases.where('traceId').equals(traceId).toArray();
    for (const r of rows)
      if (r.labelOpId && r.errorType)
        marks.push({ opId: r.labelOpId, kind: 'label', queryId: r.queryId, note: r.errorType });
    // Attributions: each case's newest one-case run, else the newest evaluation's result.
    const attributed = new Map<string, { op: string; type: string | null }>();
    const evaluation = (await listEvaluationRuns(this.db)).find((r) => r.result);
    for (const e of evaluation?.result?.cases ?? [])
      if (e.trace_id === traceId && e.predicted_op)
        attributed.set(e.query_id, { op: e.predicted_op, type: e.predicted_type });
    for (const r of rows) {
      const run = await latestCaseRun(this.db, traceId, r.queryId);
      if (run?.result.predicted_op)
        attributed.set(r.queryId, { op: run.result.predicted_op, type: run.result.predicted_type });
    }
    for (const [queryId, a] of attributed)
      marks.push({ opId: a.op, kind: 'attribution', queryId, note: a.type ?? 'no decisive memory error' });
    return marks.filter((m) => g.opIndex.has(m.opId));
  }

  async attributeCase(traceId: string, queryId: string): Promise<EvaluatedCase> {
    const { graph: g } = await this.#get(traceId);
    const c = findCase(g, queryId);
    if (!c) throw new Error(`no question ${queryId} in trace ${traceId}`);
    const row = await this.db.cases.get([traceId, queryId]);
    const label = row?.errorType ? { type: row.errorType, op: row.labelOpId } : null;
    return attributeOne(traceId, g, c, row?.system ?? null, label, this.#matching);
  }

  evaluate(
    traceIds: string[],
    onProgress: (p: EvalProgress) => void,
    labelChoice?: string,
  ): Promise<EvalResult> {
    return this.#evaluator.evaluate(traceIds, onProgress, labelChoice);
  }

  cancelEvaluation(): void {
    this.#evaluator.cancel();
  }

  runAgent(
    runId: number,
    model: ModelInfo,
    port: ModelPort,
    onEvent: (e: AgentRunEvent) => void,
  ): Promise<AgentRunRow> {
    return this.#agents.run(runId, model, port, onEvent);
  }

  cancelAgent(runId: number): void {
    this.#agents.cancel(runId);
  }

  buildReport(request: ReportRequest, onProgress: (p: ReportProgress) => void): Promise<StoredReport | null> {
    return this.#reports.build(request, onProgress);
  }

  cancelReport(): void {
    this.#reports.cancel();
  }

  importAttributions(blob: Blob, name: string): Promise<ImportedAttributions> {
    return this.#reports.importAttributions(blob, name);
  }

  narrateReport(
    runId: number,
    model: ModelInfo,
    port: ModelPort,
    onBatch: (done: number, total: number) => void,
  ): Promise<StoredReport> {
    return this.#reports.narrate(runId, model, port, onBatch);
  }

  async laneLayout(
    traceId: string,
    options: LaneLayoutOptions = {},
    onProgress: (p: LaneLayoutProgress) => void = () => {},
  ): Promise<LaneLayout> {
    onProgress({ phase: 'opening' });
    const { graph: g } = await this.#get(traceId);
    onProgress({ phase: 'layout', variables: g.varId.length, operations: g.opId.length });
    return laneLayout(g, { pack: true, ...options });
  }

  async valuePreview(traceId: string, fullNodeId: string, chars = 160): Promise<string> {
    const { graph: g } = await this.#get(traceId);
    const v = g.varIndex.get(fullNodeId);
    return v === undefined ? '' : previewText(g.varValue[v], chars);
  }

  async neighbourhood(
    traceId: string,
    seeds: NeighbourhoodSeedIds,
    options: NeighbourhoodDrawingOptions = {},
  ): Promise<NeighbourhoodData> {
    const { graph: g } = await this.#get(traceId);
    const known = (ids: string[] | undefined, index: Map<string, number>) =>
      (ids ?? []).map((id) => index.get(id)).filter((i): i is number => i !== undefined);
    const ops = known(seeds.ops, g.opIndex);
    const vars = known(seeds.vars, g.varIndex);
    // The deadline bounds the crossing reduction, counted from when the graph is open.
    return neighbourhoodDrawing(
      g,
      { ops, vars },
      { now: () => performance.now(), deadline: performance.now() + 500, ...options },
    );
  }
}

function prettyOf(value: string): string {
  return value.length > PRETTY_LIMIT ? value : readableValue(value);
}

export function varView(g: TraceGraph, v: number): VarView {
  const rec = g.vars[v];
  const value = g.varValue[v];
  const pretty = prettyOf(value);
  return {
    id: g.varId[v],
    fullName: g.varFullName[v],
    name: typeof rec.name === 'string' ? rec.name : String(rec.name),
    version: rec.version,
    className: typeof rec.class_name === 'string' ? rec.class_name : null,
    category: g.varCategory[v],
    createdAt: g.varCreatedAt[v],
    comment: typeof rec.comment === 'string' ? rec.comment : null,
    value,
    pretty,
    hasPretty: pretty !== value,
    versionCount: lineageOf(g, v).length,
    sentinel: isSentinelVar(g, v),
  };
}

/** What `findOps` matches an op by, lower-cased. */
function opSearchText(g: TraceGraph, o: number): string {
  const s = opSummary(g, o);
  return `${s.name} ${s.category} ${s.comment ?? ''} ${s.session} ${s.sessionName ?? ''} step ${s.rank + 1} ${s.id}`.toLowerCase();
}

function casesOf(opened: Opened): TraceCase[] {
  opened.cases ??= listCases(opened.graph, { includePassed: true });
  return opened.cases;
}

function evidenceOf(opened: Opened): Map<number, string[]> {
  if (!opened.evidence) {
    const map = new Map<number, string[]>();
    for (const c of casesOf(opened))
      for (const id of c.evidenceIds) {
        const v = opened.graph.varIndex.get(id);
        if (v === undefined) continue;
        const list = map.get(v);
        if (list) list.push(c.queryId);
        else map.set(v, [c.queryId]);
      }
    opened.evidence = map;
  }
  return opened.evidence;
}

interface Hit {
  v: number;
  snippet: string;
  at: number;
  length: number;
  marks: [number, number][];
}

/** Matching variables of one trace (at most `limit`), with a snippet each. */
function searchOne(opened: Opened, q: string, regex: boolean, limit: number): Hit[] {
  const g = opened.graph;
  if (regex)
    return searchValues(g, q, { regex: true, limit, perVariable: 1, context: 80 }).map((m) => ({
      v: m.var,
      snippet: m.snippet,
      at: m.snippetOffset,
      length: m.length,
      marks: [[m.snippetOffset, m.length]],
    }));
  opened.text ??= buildTextIndex(g);
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  return (opened.text.search(q, { limit }) as number[]).map((v) => ({
    v,
    ...wordSnippet(g.varValue[v], words),
  }));
}

/** One group per memory unit, in the order of its first hit. */
function groupHits(traceId: string, opened: Opened, hits: Hit[]): SearchGroup[] {
  const g = opened.graph;
  const byVar = new Map(hits.map((h) => [h.v, h]));
  const evidence = evidenceOf(opened);
  return groupByLineage(
    g,
    hits.map((h) => h.v),
  ).map(({ lineage, vars }) => {
    const first = vars[0];
    const writers = producersOf(g, first);
    const touching = writers.length ? writers : opsTouching(g, first);
    return {
      traceId,
      fullName: g.lineageNames[lineage],
      category: g.varCategory[first],
      versionCount: lineageOf(g, first).length,
      versions: vars.map((v) => {
        const h = byVar.get(v)!;
        return {
          varId: g.varId[v],
          version: g.vars[v].version,
          snippet: h.snippet,
          at: h.at,
          length: h.length,
          marks: h.marks,
        };
      }),
      op: touching.length ? opSummary(g, touching[0]) : null,
      evidenceOf: [...new Set(vars.flatMap((v) => evidence.get(v) ?? []))],
    };
  });
}

function versionDiff(g: TraceGraph, a: number, b: number): VersionDiff {
  const d = diffLines(prettyOf(g.varValue[a]), prettyOf(g.varValue[b]));
  return { from: g.varId[a], to: g.varId[b], lines: d.lines, truncated: d.truncated };
}

/** Full-text index over variable values (forward tokenisation: prefixes match while typing). */
function buildTextIndex(g: TraceGraph): Index {
  const index = new Index({ tokenize: 'forward', resolution: 9 });
  for (let v = 0; v < g.varValue.length; v++) {
    if (isSentinelVar(g, v)) continue;
    // Long values (whole memory windows) are indexed by their first part; regex search covers all of it.
    const value = g.varValue[v];
    index.add(v, value.length > 20_000 ? value.slice(0, 20_000) : value);
  }
  return index;
}
