/**
 * A test fixture builder of smartcomment documents with the toolkit's field set.
 * Not the SDK: it writes records directly so tests can state graphs compactly.
 */
import type {
  EdgeRecord,
  OperationRecord,
  SessionRecord,
  TraceDocument,
  VariableRecord,
} from '../../src/core/trace/index.ts';

export class DocBuilder {
  private t = 0;
  private n = 0;
  readonly doc: TraceDocument;
  constructor(readonly graphId = 'graph-test') {
    this.doc = {
      graph_id: graphId,
      user_id: null,
      project_id: null,
      storage_path: null,
      strict: false,
      driver_type: 'in_memory',
      created_at: '2026-01-01 00:00:00.000',
      metadata: {},
      data: { sessions: [], nodes: [], operations: [], edges: [] },
    };
    this.session('s1');
  }
  /** Timestamps advance 1 ms per record unless `sameTime` is set. */
  stamp(sameTime = false): string {
    if (!sameTime) this.t++;
    return `2026-01-01 00:00:${String(Math.floor(this.t / 1000)).padStart(2, '0')}.${String(this.t % 1000).padStart(3, '0')}`;
  }
  private base(session: string, sameTime = false) {
    return {
      created_at: this.stamp(sameTime),
      filename: 'run.py',
      lineno: 1,
      graph_id: this.graphId,
      user_id: null,
      project_id: null,
      session_id: session,
      metadata: {},
      trigger_point: 'run.py:1',
    };
  }
  session(id: string, category = 'session'): SessionRecord {
    const rec: SessionRecord = { ...this.base(id), session_name: id, comment: null, category };
    this.doc.data.sessions.push(rec);
    return rec;
  }
  variable(
    name: string,
    value: string,
    opts: {
      version?: number;
      category?: string;
      className?: string | null;
      metadata?: Record<string, unknown>;
      session?: string;
    } = {},
  ): string {
    const version = opts.version ?? 1;
    const cls = opts.className ?? null;
    const fullName = cls === null ? name : `${cls}:${name}`;
    const rec = {
      ...this.base(opts.session ?? 's1'),
      name,
      version,
      value,
      comment: null,
      category: opts.category ?? 'variable',
      class_name: cls,
      metadata: (opts.metadata ?? {}) as VariableRecord['metadata'],
      full_name: fullName,
      node_id: `${name}@${version}`,
      full_node_id: `${fullName}@${version}`,
    } as VariableRecord;
    this.doc.data.nodes.push(rec);
    return rec.full_node_id!;
  }
  /** An op with edges inputs × outputs (plus explicit extra edges). */
  op(
    name: string,
    category: string,
    inputs: string[],
    outputs: string[],
    opts: { sameTime?: boolean; id?: string; extraEdges?: [string, string][] } = {},
  ): string {
    const opId = opts.id ?? `op-${++this.n}`;
    const rec = {
      ...this.base('s1', opts.sameTime),
      op_id: opId,
      op_name: name,
      comment: null,
      category,
    } as OperationRecord;
    this.doc.data.operations.push(rec);
    const pairs: [string, string][] = [];
    for (const s of inputs) for (const t of outputs) pairs.push([s, t]);
    for (const [s, t] of [...pairs, ...(opts.extraEdges ?? [])]) {
      this.doc.data.edges.push({
        ...this.base('s1', true),
        edge_id: `edge-${++this.n}`,
        op_id: opId,
        category,
        source_full_node_id: s,
        target_full_node_id: t,
        comment: null,
      } as EdgeRecord);
    }
    return opId;
  }
  /** A judged question: query → answer op → prediction; llm-judge over query, prediction and gold. */
  judged(
    q: string,
    question: string,
    prediction: string,
    gold: string[],
    score: number,
    evidence: string[] = [],
  ) {
    const query = this.variable(q, `'${question}'`, {
      className: 'query',
      category: 'message & query',
      metadata: { evidence },
    });
    const pred = this.variable(`pred-${q}`, `'${prediction}'`, {
      className: 'prediction',
      category: 'answer',
    });
    const goldId = this.variable(`gold-${q}`, JSON.stringify(gold), {
      className: 'golden_answers',
      category: 'golden',
    });
    const resp = this.variable(`judge-${q}`, score ? "'CORRECT'" : "'WRONG'", {
      className: 'judge_response',
      category: 'judge',
    });
    const sc = this.variable(`score-${q}`, String(score.toFixed(1)), {
      className: 'judge_score',
      category: 'judge',
    });
    const judgeOp = this.op('llm-judge', 'evaluation', [query, pred, goldId], [resp, sc]);
    return { query, pred, gold: goldId, judgeOp };
  }
  text(): string {
    return JSON.stringify(this.doc, null, 2);
  }
}
