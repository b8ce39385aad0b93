/**
 * Record writing: sessions, nodes, operations and edges with the exact field set and key
 * order of the toolkit's JSON, the sentinels (`__none__`, `COMMENT:NONE@1`, `__none_op__`)
 * written once each and only when needed, and the record counts.
 */
import { type Annotation, fullNameOf, type JsonObject } from '../core/trace/index.ts';
import { type Clock, formatTimestamp } from './clock.ts';
import type { IdSource } from './ids.ts';
import type { Location, TracedVar } from './options.ts';
import type { GraphSink, RecordList } from './sink.ts';

export const SENTINEL_SESSION_ID = '__none__';
export const SENTINEL_OP_ID = '__none_op__';
export const SENTINEL_NAME = 'COMMENT:NONE';
export const SENTINEL_NODE_ID = 'COMMENT:NONE@1';
const SENTINEL_AT: Location = { filename: '<sentinel>', lineno: 0 };

/** The descriptive fields every record of one kind takes. */
interface RecordFields {
  category: string;
  comment: string | null;
  metadata: JsonObject;
  at: Location;
}

interface OwnedFields extends RecordFields {
  sessionId: string;
}

/** The graph-wide ids repeated in every record. */
interface GraphIds {
  graphId: string;
  userId: string | null;
  projectId: string | null;
}

export class RecordWriter {
  /** Counts of records written (for progress and benchmarks). */
  readonly counts: Record<RecordList, number> = {
    nodes: 0,
    edges: 0,
    operations: 0,
    sessions: 0,
    annotations: 0,
  };
  /** The op_id of the last operation written (sentinels aside). */
  lastOpId: string | null = null;
  private sentinels = { session: false, node: false, op: false };
  private closed = false;

  constructor(
    private readonly graph: GraphIds,
    private readonly clock: Clock,
    private readonly ids: IdSource,
    private readonly sink: GraphSink,
  ) {}

  now(): string {
    return formatTimestamp(this.clock());
  }

  /** No records can be added afterwards. */
  close(): void {
    this.closed = true;
  }

  private emit(list: RecordList, record: object) {
    if (this.closed) throw new Error('the trace is finished; no more records can be added');
    this.counts[list]++;
    this.sink.add(list, record);
  }

  private base(at: Location) {
    return { created_at: this.now(), filename: at.filename, lineno: at.lineno };
  }

  session(sessionId: string, name: string | null, o: RecordFields): void {
    this.emit('sessions', {
      ...this.base(o.at),
      session_id: sessionId,
      session_name: name,
      graph_id: this.graph.graphId,
      user_id: this.graph.userId,
      project_id: this.graph.projectId,
      comment: o.comment,
      category: o.category,
      metadata: o.metadata,
      trigger_point: `${o.at.filename}:${o.at.lineno}`,
    });
  }

  node(name: string, className: string | null, version: number, value: string, o: OwnedFields): TracedVar {
    const fullName = fullNameOf(name, className);
    const fullNodeId = `${fullName}@${version}`;
    this.emit('nodes', {
      ...this.base(o.at),
      name,
      version,
      value,
      comment: o.comment,
      category: o.category,
      graph_id: this.graph.graphId,
      user_id: this.graph.userId,
      class_name: className,
      project_id: this.graph.projectId,
      session_id: o.sessionId,
      metadata: o.metadata,
      trigger_point: `${o.at.filename}:${o.at.lineno}`,
      full_name: fullName,
      node_id: `${name}@${version}`,
      full_node_id: fullNodeId,
    });
    return { name, className, version, fullName, fullNodeId, value };
  }

  /** An operation; `createdAt` is when it started (ops are written when they end). */
  op(opId: string, name: string | null, o: OwnedFields & { createdAt: string }): void {
    if (opId !== SENTINEL_OP_ID) this.lastOpId = opId;
    this.emit('operations', {
      created_at: o.createdAt,
      filename: o.at.filename,
      lineno: o.at.lineno,
      op_id: opId,
      op_name: name,
      comment: o.comment,
      category: o.category,
      graph_id: this.graph.graphId,
      user_id: this.graph.userId,
      project_id: this.graph.projectId,
      session_id: o.sessionId,
      metadata: o.metadata,
      trigger_point: `${o.at.filename}:${o.at.lineno}`,
    });
  }

  edge(opId: string, source: string, target: string, o: OwnedFields): void {
    this.emit('edges', {
      ...this.base(o.at),
      edge_id: `edge-${this.ids()}`,
      graph_id: this.graph.graphId,
      user_id: this.graph.userId,
      project_id: this.graph.projectId,
      session_id: o.sessionId,
      op_id: opId,
      category: o.category,
      source_full_node_id: source,
      target_full_node_id: target,
      comment: o.comment,
      metadata: o.metadata,
      trigger_point: `${o.at.filename}:${o.at.lineno}`,
    });
  }

  annotation(annotation: Annotation): void {
    this.emit('annotations', annotation);
  }

  // ---- sentinels (only when needed) ------------------------------------------------

  /** The session of records made outside every session. */
  sentinelSession(): string {
    if (!this.sentinels.session) {
      this.sentinels.session = true;
      this.session(SENTINEL_SESSION_ID, 'NONE sentinel', sentinelFields());
    }
    return SENTINEL_SESSION_ID;
  }

  /** The node standing in for a missing input or output of an op. */
  sentinelNode(): string {
    if (!this.sentinels.node) {
      this.sentinelSession();
      this.sentinels.node = true;
      this.node(SENTINEL_NAME, null, 1, 'NONE', { ...sentinelFields(), sessionId: SENTINEL_SESSION_ID });
    }
    return SENTINEL_NODE_ID;
  }

  /** The op that owns links made outside every op. */
  sentinelOp(): string {
    if (!this.sentinels.op) {
      this.sentinelSession();
      this.sentinels.op = true;
      this.op(SENTINEL_OP_ID, 'NONE sentinel', {
        ...sentinelFields(),
        sessionId: SENTINEL_SESSION_ID,
        createdAt: this.now(),
      });
    }
    return SENTINEL_OP_ID;
  }
}

function sentinelFields(): RecordFields {
  return { category: 'sentinel', comment: null, metadata: {}, at: SENTINEL_AT };
}
