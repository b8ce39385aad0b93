/**
 * One open trace in the engine worker: the graph parsed and validated once, and everything
 * built from it on first use — its questions, the evidence map, the words index (`WordsIndex`),
 * the ranked-retrieval index (BM25, vectors from the embedder worker) — answering the views'
 * questions about this trace. Nothing here reads the file again.
 */
import { casePath, listCases, type TraceCase } from '../src/core/cases/index.ts';
import {
  consumersOf,
  groupByLineage,
  isSentinelVar,
  lineageOf,
  opMetadata,
  opStructure,
  opSummary,
  opsTouching,
  producersOf,
  searchValues,
  type TraceGraph,
  varMetadata,
  wordSnippet,
} from '../src/core/graph/index.ts';
import {
  type LaneLayout,
  type LaneLayoutOptions,
  laneLayout,
  type NeighbourhoodDrawingOptions,
  neighbourhoodDrawing,
  previewText,
} from '../src/core/layout/index.ts';
import { type IndexStore, TraceRetrieval } from '../src/core/retrieval/index.ts';
import { buildSpanTable, type SpanTable, spanInputs } from '../src/core/spans/index.ts';
import { diffLines } from '../src/core/text/index.ts';
import { readableValue, valueCut } from '../src/core/trace/index.ts';
import type {
  CaseOverview,
  CaseThrough,
  NeighbourhoodData,
  NeighbourhoodSeedIds,
  OpDetail,
  OpMatches,
  OpSummary,
  SearchGroup,
  VarDetail,
  VarView,
  VersionDiff,
} from './api.ts';
import { PATH_SHOWN } from './api.ts';
import { WordsIndex } from './words-index.ts';

const PRETTY_LIMIT = 2_000_000;

interface Hit {
  v: number;
  snippet: string;
  at: number;
  length: number;
  marks: [number, number][];
}

export class TraceEngine {
  #cases?: TraceCase[];
  #evidence?: Map<number, string[]>;
  #text?: WordsIndex;
  #retrieval?: TraceRetrieval;
  #spans?: SpanTable;
  #casesByOp?: Map<number, number[]>;

  constructor(
    readonly traceId: string,
    readonly graph: TraceGraph,
    private readonly store?: IndexStore,
  ) {}

  /** Every question of the trace (passed ones too), read once. */
  get cases(): TraceCase[] {
    this.#cases ??= listCases(this.graph, { includePassed: true });
    return this.#cases;
  }

  /** Ranked retrieval over this graph (its index is built on first search). */
  get retrieval(): TraceRetrieval {
    this.#retrieval ??= new TraceRetrieval(this.graph, this.traceId, {
      store: this.store,
      now: () => performance.now(),
    });
    return this.#retrieval;
  }

  /** The span tree's rows (empty for a trace of no spans), built once. */
  get spanTable(): SpanTable {
    this.#spans ??= buildSpanTable(spanInputs(this.graph));
    return this.#spans;
  }

  /** The cases whose path passes through an op (every case's path walked once, on first use). */
  casesThroughOp(opId: string): CaseThrough[] {
    const o = this.graph.opIndex.get(opId);
    if (o === undefined) return [];
    if (!this.#casesByOp) {
      const map = new Map<number, number[]>();
      this.cases.forEach((c, i) => {
        for (const p of casePath(this.graph, c).ops) {
          const list = map.get(p);
          if (list) list.push(i);
          else map.set(p, [i]);
        }
      });
      this.#casesByOp = map;
    }
    return (this.#casesByOp.get(o) ?? []).map((i) => {
      const c = this.cases[i];
      return { queryId: c.queryId, question: c.question, failed: c.failed };
    });
  }

  /** Evidence variable → the questions naming it. */
  #evidenceMap(): Map<number, string[]> {
    if (this.#evidence) return this.#evidence;
    const map = new Map<number, string[]>();
    for (const c of this.cases)
      for (const id of c.evidenceIds) {
        const v = this.graph.varIndex.get(id);
        if (v === undefined) continue;
        const list = map.get(v);
        if (list) list.push(c.queryId);
        else map.set(v, [c.queryId]);
      }
    this.#evidence = map;
    return map;
  }

  caseOverview(queryId: string): CaseOverview {
    const g = this.graph;
    const c = this.cases.find((x) => x.queryId === queryId);
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

  /** Names of some ops (null for an id the trace does not have), in the order asked. */
  describeOps(opIds: string[]): (OpSummary | null)[] {
    const g = this.graph;
    return opIds.map((id) => {
      const o = g.opIndex.get(id);
      return o === undefined ? null : opSummary(g, o);
    });
  }

  /** Ops whose name, kind, comment, session, step or id hold every word of `query`: the first `limit`, in execution order. */
  findOps(query: string, limit = 100): OpMatches {
    const g = this.graph;
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    const ops: OpSummary[] = [];
    let total = 0;
    for (const o of g.opOrder) {
      if (words.length && !words.every((w) => opSearchText(g, o).includes(w))) continue;
      if (total++ < limit) ops.push(opSummary(g, o));
    }
    return { ops, total };
  }

  opDetail(opId: string): OpDetail | null {
    const g = this.graph;
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

  varDetail(fullNodeId: string): VarDetail | null {
    const g = this.graph;
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

  diffVersions(from: string, to: string): VersionDiff | null {
    const a = this.graph.varIndex.get(from);
    const b = this.graph.varIndex.get(to);
    if (a === undefined || b === undefined) return null;
    return versionDiff(this.graph, a, b);
  }

  laneLayout(options: LaneLayoutOptions): LaneLayout {
    return laneLayout(this.graph, { pack: true, ...options });
  }

  valuePreview(fullNodeId: string, chars: number): string {
    const v = this.graph.varIndex.get(fullNodeId);
    return v === undefined ? '' : previewText(this.graph.varValue[v], chars);
  }

  neighbourhood(seeds: NeighbourhoodSeedIds, options: NeighbourhoodDrawingOptions): NeighbourhoodData {
    const g = this.graph;
    const known = (ids: string[] | undefined, index: Map<string, number>) =>
      (ids ?? []).map((id) => index.get(id)).filter((i): i is number => i !== undefined);
    // The deadline bounds the crossing reduction, counted from when the graph is open.
    return neighbourhoodDrawing(
      g,
      { ops: known(seeds.ops, g.opIndex), vars: known(seeds.vars, g.varIndex) },
      { now: () => performance.now(), deadline: performance.now() + 500, ...options },
    );
  }

  /** Matching variables of this trace (at most `limit`) grouped by memory unit. */
  search(
    q: string,
    regex: boolean,
    limit: number,
  ): { groups: SearchGroup[]; variables: number; truncated: boolean } {
    const found = this.#hits(q, regex, limit + 1);
    const truncated = found.length > limit;
    if (truncated) found.length = limit;
    return { groups: this.#group(found), variables: found.length, truncated };
  }

  #hits(q: string, regex: boolean, limit: number): Hit[] {
    const g = this.graph;
    if (regex)
      return searchValues(g, q, { regex: true, limit, perVariable: 1, context: 80 }).map((m) => ({
        v: m.var,
        snippet: m.snippet,
        at: m.snippetOffset,
        length: m.length,
        marks: [[m.snippetOffset, m.length]],
      }));
    this.#text ??= buildTextIndex(g);
    const words = q.toLowerCase().split(/\s+/).filter(Boolean);
    return this.#text.search(q, limit).map((v) => ({
      v,
      ...wordSnippet(g.varValue[v], words),
    }));
  }

  /** One group per memory unit, in the order of its first hit. */
  #group(hits: Hit[]): SearchGroup[] {
    const g = this.graph;
    const byVar = new Map(hits.map((h) => [h.v, h]));
    const evidence = this.#evidenceMap();
    return groupByLineage(
      g,
      hits.map((h) => h.v),
    ).map(({ lineage, vars }) => {
      const first = vars[0];
      const writers = producersOf(g, first);
      const touching = writers.length ? writers : opsTouching(g, first);
      return {
        traceId: this.traceId,
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
}

function prettyOf(value: string): string {
  return value.length > PRETTY_LIMIT ? value : readableValue(value);
}

/** A variable as the views show it. */
function varView(g: TraceGraph, v: number): VarView {
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

function versionDiff(g: TraceGraph, a: number, b: number): VersionDiff {
  const d = diffLines(prettyOf(g.varValue[a]), prettyOf(g.varValue[b]));
  return { from: g.varId[a], to: g.varId[b], lines: d.lines, truncated: d.truncated };
}

/** The words index over variable values (sentinels left out; a shared version read through its cut, never copied). */
function buildTextIndex(g: TraceGraph): WordsIndex {
  return new WordsIndex(g.varValue.length, (v) =>
    isSentinelVar(g, v) ? null : (valueCut(g.vars[v]) ?? g.varValue[v]),
  );
}
