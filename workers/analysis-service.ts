/**
 * Analysis: opens stored traces into indexed graphs (kept for the few most recent)
 * and answers the views' questions — op inspector, variable history, diffs, case
 * context, search, graph data for drawing. Runs inside the analysis worker.
 */

import { Index } from 'flexsearch';
import { listCases } from '../src/core/cases/cases.ts';
import {
  buildGraph,
  isSentinelOp,
  isSentinelVar,
  opMetadata,
  type TraceGraph,
  varMetadata,
} from '../src/core/graph/graph.ts';
import {
  closure,
  consumersOf,
  lineageOf,
  opStructure,
  opsTouching,
  producersOf,
} from '../src/core/graph/queries.ts';
import { searchValues } from '../src/core/graph/search.ts';
import {
  type LaneLayout,
  type LaneLayoutOptions,
  laneLayout,
  type NeighbourhoodDrawingOptions,
  neighbourhoodDrawing,
} from '../src/core/layout/index.ts';
import { parseTraceText } from '../src/core/trace/import.ts';
import { prettyValue } from '../src/core/trace/pyrepr.ts';
import type { AgentRunRow } from '../src/db/agent-runs.ts';
import { getOriginal } from '../src/db/repo.ts';
import type { MemtraceDb } from '../src/db/schema.ts';
import { AgentRunner } from './agent-runs.ts';
import type {
  AgentRunEvent,
  AnalysisApi,
  CaseContext,
  ModelInfo,
  ModelPort,
  NeighbourhoodData,
  NeighbourhoodSeedIds,
  OpDetail,
  OpSummary,
  SearchHit,
  SearchResult,
  VarDetail,
  VarView,
  VersionDiff,
} from './api.ts';
import { type CompareProgress, type CompareResult, Comparer, type MemoryComparison } from './compare-runs.ts';
import { diffLines } from './diff.ts';
import {
  attributeOne,
  type EvalProgress,
  type EvalResult,
  type EvaluatedCase,
  Evaluator,
  findCase,
} from './evaluation.ts';

interface Opened {
  graph: TraceGraph;
  text?: Index;
}

const KEEP_OPEN = 3;
const PRETTY_LIMIT = 2_000_000;

export class AnalysisService implements AnalysisApi {
  readonly #open = new Map<string, Promise<Opened>>();
  readonly #evaluator: Evaluator;
  readonly #agents: AgentRunner;
  readonly #comparer: Comparer;

  constructor(private readonly db: MemtraceDb) {
    this.#evaluator = new Evaluator(db, async (id) => (await this.#get(id)).graph);
    this.#agents = new AgentRunner(db, async (id) => (await this.#get(id)).graph);
    this.#comparer = new Comparer(async (id) => (await this.#get(id)).graph);
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

  async caseContext(traceId: string, queryId: string): Promise<CaseContext> {
    const { graph: g } = await this.#get(traceId);
    const c = listCases(g, { includePassed: true }).find((x) => x.queryId === queryId);
    const evidence = (c?.evidenceIds ?? [])
      .map((id) => g.varIndex.get(id))
      .filter((v): v is number => v !== undefined)
      .map((v) => varView(g, v));
    // The way from the conversation to the answer: everything upstream of the judged question's variables.
    const start: number[] = [];
    const judge = c?.judgeOpId ? g.opIndex.get(c.judgeOpId) : undefined;
    if (judge !== undefined) {
      const s = opStructure(g, judge);
      start.push(...s.inputs, ...s.intermediates);
    } else {
      const q = g.varIndex.get(queryId);
      if (q !== undefined) start.push(q);
    }
    const up = closure(g, start, { direction: 'upstream', maxDepth: 6 });
    const ops = up.ops.filter((o) => !isSentinelOp(g, o));
    if (judge !== undefined && !ops.includes(judge)) ops.push(judge);
    const labelOpIndex = c?.label?.opId ? g.opIndex.get(c.label.opId) : undefined;
    // The labelled op may sit further back than the walk goes (a window trimmed long ago): show it in place.
    if (labelOpIndex !== undefined && !ops.includes(labelOpIndex)) {
      ops.push(labelOpIndex);
      ops.sort((a, b) => g.opRank[a] - g.opRank[b]);
    }
    const limit = 200;
    return {
      evidence,
      path: ops.slice(-limit).map((o) => opSummary(g, o)),
      pathTruncated: ops.length > limit,
      labelOp: labelOpIndex === undefined ? null : opSummary(g, labelOpIndex),
    };
  }

  async opDetail(traceId: string, opId: string): Promise<OpDetail | null> {
    const { graph: g } = await this.#get(traceId);
    const o = g.opIndex.get(opId);
    if (o === undefined) return null;
    const s = opStructure(g, o);
    const views = (vs: number[]) => vs.filter((v) => !isSentinelVar(g, v)).map((v) => varView(g, v));
    const rank = g.opRank[o];
    const rec = g.ops[o];
    return {
      ...opSummary(g, o),
      comment: typeof rec.comment === 'string' ? rec.comment : null,
      session: typeof rec.session_id === 'string' ? rec.session_id : '',
      metadata: JSON.stringify(opMetadata(g, o), null, 2),
      inputs: views(s.inputs),
      intermediates: views(s.intermediates),
      outputs: views(s.outputs),
      previous: rank > 0 ? opSummary(g, g.opOrder[rank - 1]) : null,
      next: rank + 1 < g.opOrder.length ? opSummary(g, g.opOrder[rank + 1]) : null,
    };
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
    const d = diffLines(prettyOf(g.varValue[a]), prettyOf(g.varValue[b]));
    return { from, to, lines: d.lines, truncated: d.truncated };
  }

  async search(
    traceId: string,
    query: string,
    options: { regex?: boolean; limit?: number } = {},
  ): Promise<SearchResult> {
    const t0 = performance.now();
    const opened = await this.#get(traceId);
    const g = opened.graph;
    const limit = options.limit ?? 50;
    const q = query.trim();
    if (!q) return { hits: [], tookMs: 0 };
    if (options.regex) {
      try {
        const matches = searchValues(g, q, { regex: true, limit, perVariable: 1, context: 80 });
        const hits = matches.map((m) => hit(g, m.var, m.snippet, m.snippetOffset, m.length));
        return { hits, tookMs: performance.now() - t0 };
      } catch (e) {
        return {
          hits: [],
          error: e instanceof Error ? e.message : String(e),
          tookMs: performance.now() - t0,
        };
      }
    }
    opened.text ??= buildTextIndex(g);
    const ids = opened.text.search(q, { limit }) as number[];
    const words = q.toLowerCase().split(/\s+/).filter(Boolean);
    const hits = ids.map((v) => {
      const value = g.varValue[v];
      const lower = value.toLowerCase();
      let at = -1;
      let len = 0;
      for (const w of words) {
        at = lower.indexOf(w);
        if (at >= 0) {
          len = w.length;
          break;
        }
      }
      if (at < 0) return hit(g, v, value.slice(0, 160), -1, 0);
      const start = Math.max(0, at - 80);
      return hit(g, v, value.slice(start, at + len + 80), at - start, len);
    });
    return { hits, tookMs: performance.now() - t0 };
  }

  async attributeCase(traceId: string, queryId: string): Promise<EvaluatedCase> {
    const { graph: g } = await this.#get(traceId);
    const c = findCase(g, queryId);
    if (!c) throw new Error(`no question ${queryId} in trace ${traceId}`);
    const row = await this.db.cases.get([traceId, queryId]);
    const label = row?.errorType ? { type: row.errorType, op: row.labelOpId } : null;
    return attributeOne(traceId, g, c, row?.system ?? null, label);
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

  async laneLayout(traceId: string, options: LaneLayoutOptions = {}): Promise<LaneLayout> {
    const { graph: g } = await this.#get(traceId);
    return laneLayout(g, options);
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
  return value.length > PRETTY_LIMIT ? value : prettyValue(value);
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

export function opSummary(g: TraceGraph, o: number): OpSummary {
  return {
    id: g.opId[o],
    name: g.opName[o],
    category: g.opCategory[o],
    createdAt: g.opCreatedAt[o],
    rank: g.opRank[o],
  };
}

function hit(g: TraceGraph, v: number, snippet: string, at: number, length: number): SearchHit {
  const writers = producersOf(g, v);
  const touching = writers.length ? writers : opsTouching(g, v);
  return {
    varId: g.varId[v],
    fullName: g.varFullName[v],
    category: g.varCategory[v],
    snippet,
    at,
    length,
    op: touching.length ? opSummary(g, touching[0]) : null,
  };
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
