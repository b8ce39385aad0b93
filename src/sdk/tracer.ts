/**
 * The tracer: the TypeScript counterpart of the smartcomment toolkit. It records
 * sessions, variables (with identity strategies and version chains), operations
 * (edges = inputs × outputs), links and mutations, and writes them with the exact
 * field set and key order of the toolkit's JSON.
 */
import { fullNameOf } from '../core/trace/identity.ts';
import type { Annotation, JsonObject, TraceDocument } from '../core/trace/types.ts';
import { type Clock, formatTimestamp, systemClock } from './clock.ts';
import { type ContextProvider, type OpFrame, StackContext, type TraceFrame } from './context.ts';
import { contentName, pyRepr, pyTypeName } from './encode.ts';
import { type IdSource, randomIds } from './ids.ts';
import { sha1Hex } from './sha1.ts';
import { type GraphSink, MemorySink, type TraceHeader } from './sink.ts';

/** Where a record was made (`filename:lineno` becomes its trigger_point). */
export interface Location {
  filename: string;
  lineno: number;
}

export interface TracerOptions {
  graphId?: string;
  userId?: string | null;
  projectId?: string | null;
  storagePath?: string | null;
  /** Strict mode: a changed value for an existing identity without `mutate` throws. */
  strict?: boolean;
  /** Graph-level metadata (top-level `metadata`). */
  metadata?: JsonObject;
  clock?: Clock;
  ids?: IdSource;
  context?: ContextProvider;
  sink?: GraphSink;
  /** Default location of records (the toolkit records the caller's file and line). */
  filename?: string;
  /** 'stack' reads the caller's file and line from a stack trace (slower); default 'fixed'. */
  callsite?: 'fixed' | 'stack';
  /** How values become stored strings; default Python repr, as the toolkit. */
  encode?: (value: unknown) => string;
  /** SHA-1 used for content names (pure TypeScript by default; Node's crypto is faster). */
  sha1?: (text: string) => string;
}

/** Identity strategies: content hash `<type>:<sha1>`, object identity `<type>:<id>`, or a custom name. */
export type Identity = 'content' | 'object' | 'custom';

export interface VariableOptions {
  /** A custom name (implies identity 'custom'). */
  name?: string;
  identity?: Identity;
  className?: string | null;
  /** Default "variable" (a new version keeps its chain's category unless given). */
  category?: string;
  comment?: string | null;
  metadata?: JsonObject;
  encode?: (value: unknown) => string;
  session?: SessionHandle;
  at?: Location;
}

/** A recorded variable version. */
export interface TracedVar {
  readonly name: string;
  readonly className: string | null;
  readonly version: number;
  readonly fullName: string;
  readonly fullNodeId: string;
  /** The stored string. */
  readonly value: string;
}

export interface SessionHandle {
  readonly sessionId: string;
  readonly name: string;
}

export interface SessionOptions {
  id?: string;
  category?: string;
  comment?: string | null;
  metadata?: JsonObject;
  at?: Location;
}

export interface OperationOptions {
  category?: string;
  comment?: string | null;
  metadata?: JsonObject;
  session?: SessionHandle;
  at?: Location;
}

export interface OneShotOperationOptions extends OperationOptions {
  inputs?: TracedVar[];
  outputs?: TracedVar[];
}

export interface MutationOptions extends OperationOptions {
  /** Op name; default `mutation:<full_name>`. */
  name?: string;
  /** Other variables the new version was made from (edges input → new version). */
  inputs?: TracedVar[];
  /** Variable fields of the new version (default: those of the chain). */
  variable?: Pick<VariableOptions, 'category' | 'comment' | 'metadata' | 'encode'>;
}

export interface LinkOptions {
  comment?: string | null;
  category?: string;
  metadata?: JsonObject;
  at?: Location;
}

export interface WrapOptions<A extends unknown[], R> extends OperationOptions {
  name?: string;
  /** Traces the arguments as inputs; default: each argument by content. */
  inputs?: (scope: OpScope, ...args: A) => void;
  /** Traces the result as an output; default: by content. */
  output?: (scope: OpScope, result: Awaited<R>) => void;
}

export class TraceConsistencyError extends Error {}

export const SENTINEL_SESSION_ID = '__none__';
export const SENTINEL_OP_ID = '__none_op__';
export const SENTINEL_NAME = 'COMMENT:NONE';
export const SENTINEL_NODE_ID = 'COMMENT:NONE@1';
const SENTINEL_AT: Location = { filename: '<sentinel>', lineno: 0 };

interface Chain {
  version: number;
  value: string;
  category: string;
  comment: string | null;
  latest: TracedVar;
}

function isPromiseLike(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

const SDK_FRAME = /[\\/]src[\\/]sdk[\\/]|node:internal|node_modules/;

function stackLocation(fallback: Location): Location {
  const stack = new Error().stack?.split('\n').slice(1) ?? [];
  for (const line of stack) {
    if (SDK_FRAME.test(line)) continue;
    const m = /\(?((?:file:\/\/)?[^\s()]+):(\d+):\d+\)?\s*$/.exec(line);
    if (m) return { filename: m[1].split(/[\\/]/).pop() ?? m[1], lineno: Number(m[2]) };
  }
  return fallback;
}

/** A scope of one operation: inputs and outputs are collected, the edges I × O written when it ends. */
export class OpScope {
  readonly inputs: TracedVar[] = [];
  readonly outputs: TracedVar[] = [];
  metadata: JsonObject;
  comment: string | null;
  constructor(
    private readonly tracer: Tracer,
    readonly opId: string,
    readonly name: string | null,
    readonly category: string,
    comment: string | null,
    metadata: JsonObject,
    readonly sessionId: string,
    readonly at: Location,
    readonly startedAt: number,
  ) {
    this.comment = comment;
    this.metadata = metadata;
  }
  /** Records (or reuses) a variable and marks it an input. */
  input(value: unknown, options: VariableOptions = {}): TracedVar {
    const v = isTracedVar(value) ? value : this.tracer.variable(value, this.defaults(options));
    if (!this.inputs.some((x) => x.fullNodeId === v.fullNodeId)) this.inputs.push(v);
    return v;
  }
  /** Records (or reuses) a variable and marks it an output. */
  output(value: unknown, options: VariableOptions = {}): TracedVar {
    const v = isTracedVar(value) ? value : this.tracer.variable(value, this.defaults(options));
    if (!this.outputs.some((x) => x.fullNodeId === v.fullNodeId)) this.outputs.push(v);
    return v;
  }
  /** Adds metadata to the op (and its edges); propagates to variables made afterwards in the scope. */
  setMetadata(metadata: JsonObject): void {
    Object.assign(this.metadata, metadata);
  }
  setComment(comment: string | null): void {
    this.comment = comment;
  }
  private defaults(options: VariableOptions): VariableOptions {
    return { at: this.at, ...options };
  }
}

export function isTracedVar(v: unknown): v is TracedVar {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as TracedVar).fullNodeId === 'string' &&
    typeof (v as TracedVar).version === 'number' &&
    Object.hasOwn(v, 'fullName')
  );
}

export class Tracer {
  readonly graphId: string;
  readonly userId: string | null;
  readonly projectId: string | null;
  readonly strict: boolean;
  readonly metadata: JsonObject;
  private readonly createdAt: string;
  private readonly clock: Clock;
  private readonly ids: IdSource;
  private readonly context: ContextProvider;
  private readonly sink: GraphSink;
  private readonly filename: string;
  private readonly useStack: boolean;
  private readonly encodeValue: (value: unknown) => string;
  private readonly sha1: (text: string) => string;
  private readonly storagePath: string | null;
  private readonly chains = new Map<string, Chain>();
  private readonly objectIds = new WeakMap<object, number>();
  private nextObjectId = 0x7f0000000000;
  private sentinels = { session: false, node: false, op: false };
  private closed = false;
  /** Counts of records written (for progress and benchmarks). */
  readonly counts = { nodes: 0, edges: 0, operations: 0, sessions: 0, annotations: 0 };

  constructor(options: TracerOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? randomIds;
    this.context = options.context ?? new StackContext();
    this.sink = options.sink ?? new MemorySink();
    this.graphId = options.graphId ?? `graph-${this.ids()}`;
    this.userId = options.userId ?? null;
    this.projectId = options.projectId ?? null;
    this.storagePath = options.storagePath ?? null;
    this.strict = options.strict ?? false;
    this.metadata = options.metadata ?? {};
    this.filename = options.filename ?? '<typescript>';
    this.useStack = options.callsite === 'stack';
    this.encodeValue = options.encode ?? ((v) => pyRepr(v));
    this.sha1 = options.sha1 ?? sha1Hex;
    this.createdAt = this.now();
  }

  // ---- time, place, scope ----------------------------------------------------------

  private now(): string {
    return formatTimestamp(this.clock());
  }

  private where(at: Location | undefined): Location {
    if (at) return at;
    const fallback = { filename: this.filename, lineno: 0 };
    return this.useStack ? stackLocation(fallback) : fallback;
  }

  private frame(): TraceFrame | undefined {
    return this.context.current();
  }

  private sessionOf(explicit: SessionHandle | undefined): string {
    if (explicit) return explicit.sessionId;
    const f = this.frame();
    if (f?.sessionId) return f.sessionId;
    this.ensureSentinelSession();
    return SENTINEL_SESSION_ID;
  }

  /** Metadata inherited from enclosing scopes (withMetadata, then the enclosing op). */
  private inherited(): JsonObject {
    const f = this.frame();
    if (!f) return {};
    return f.op ? { ...f.metadata, ...f.op.metadata } : f.metadata;
  }

  private base(at: Location) {
    return {
      created_at: this.now(),
      filename: at.filename,
      lineno: at.lineno,
    };
  }

  private emit(list: 'nodes' | 'edges' | 'operations' | 'sessions' | 'annotations', record: object) {
    if (this.closed) throw new Error('the trace is finished; no more records can be added');
    this.counts[list]++;
    this.sink.add(list, record);
  }

  // ---- sentinels (only when needed) ------------------------------------------------

  private ensureSentinelSession() {
    if (this.sentinels.session) return;
    this.sentinels.session = true;
    this.writeSession(SENTINEL_SESSION_ID, 'NONE sentinel', {
      category: 'sentinel',
      comment: null,
      metadata: {},
      at: SENTINEL_AT,
    });
  }

  private ensureSentinelNode() {
    if (this.sentinels.node) return;
    this.ensureSentinelSession();
    this.sentinels.node = true;
    this.writeNode(SENTINEL_NAME, null, 1, 'NONE', {
      category: 'sentinel',
      comment: null,
      metadata: {},
      sessionId: SENTINEL_SESSION_ID,
      at: SENTINEL_AT,
    });
  }

  private ensureSentinelOp() {
    if (this.sentinels.op) return;
    this.ensureSentinelSession();
    this.sentinels.op = true;
    this.writeOp(SENTINEL_OP_ID, 'NONE sentinel', {
      category: 'sentinel',
      comment: null,
      metadata: {},
      sessionId: SENTINEL_SESSION_ID,
      at: SENTINEL_AT,
      createdAt: this.now(),
    });
  }

  // ---- record writers (field order of the toolkit) ---------------------------------

  private writeSession(
    sessionId: string,
    name: string | null,
    o: { category: string; comment: string | null; metadata: JsonObject; at: Location },
  ) {
    this.emit('sessions', {
      ...this.base(o.at),
      session_id: sessionId,
      session_name: name,
      graph_id: this.graphId,
      user_id: this.userId,
      project_id: this.projectId,
      comment: o.comment,
      category: o.category,
      metadata: o.metadata,
      trigger_point: `${o.at.filename}:${o.at.lineno}`,
    });
  }

  private writeNode(
    name: string,
    className: string | null,
    version: number,
    value: string,
    o: { category: string; comment: string | null; metadata: JsonObject; sessionId: string; at: Location },
  ): TracedVar {
    const fullName = fullNameOf(name, className);
    const fullNodeId = `${fullName}@${version}`;
    this.emit('nodes', {
      ...this.base(o.at),
      name,
      version,
      value,
      comment: o.comment,
      category: o.category,
      graph_id: this.graphId,
      user_id: this.userId,
      class_name: className,
      project_id: this.projectId,
      session_id: o.sessionId,
      metadata: o.metadata,
      trigger_point: `${o.at.filename}:${o.at.lineno}`,
      full_name: fullName,
      node_id: `${name}@${version}`,
      full_node_id: fullNodeId,
    });
    return { name, className, version, fullName, fullNodeId, value };
  }

  /** The op_id of the last operation written (after `mutate`, the mutation's op). */
  lastOpId: string | null = null;

  private writeOp(
    opId: string,
    name: string | null,
    o: {
      category: string;
      comment: string | null;
      metadata: JsonObject;
      sessionId: string;
      at: Location;
      createdAt: string;
    },
  ) {
    if (opId !== SENTINEL_OP_ID) this.lastOpId = opId;
    this.emit('operations', {
      created_at: o.createdAt,
      filename: o.at.filename,
      lineno: o.at.lineno,
      op_id: opId,
      op_name: name,
      comment: o.comment,
      category: o.category,
      graph_id: this.graphId,
      user_id: this.userId,
      project_id: this.projectId,
      session_id: o.sessionId,
      metadata: o.metadata,
      trigger_point: `${o.at.filename}:${o.at.lineno}`,
    });
  }

  private writeEdge(
    opId: string,
    source: string,
    target: string,
    o: { category: string; comment: string | null; metadata: JsonObject; sessionId: string; at: Location },
  ) {
    this.emit('edges', {
      ...this.base(o.at),
      edge_id: `edge-${this.ids()}`,
      graph_id: this.graphId,
      user_id: this.userId,
      project_id: this.projectId,
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

  // ---- sessions --------------------------------------------------------------------

  /** Opens a session explicitly (browser style): pass it as `session` or run code with `within`. */
  startSession(name: string, options: SessionOptions = {}): SessionHandle {
    const sessionId = options.id ?? `session-${this.ids()}`;
    this.writeSession(sessionId, name, {
      category: options.category ?? 'session',
      comment: options.comment ?? null,
      metadata: options.metadata ?? {},
      at: this.where(options.at),
    });
    return { sessionId, name };
  }

  /** Runs fn inside a new session scope. */
  session<T>(name: string, options: SessionOptions, fn: (session: SessionHandle) => T): T {
    const s = this.startSession(name, options);
    return this.within(s, () => fn(s));
  }

  /** Runs fn with `session` as the current session. */
  within<T>(session: SessionHandle, fn: () => T): T {
    const f = this.frame();
    return this.context.run({ sessionId: session.sessionId, op: f?.op, metadata: f?.metadata ?? {} }, fn);
  }

  /** Runs fn with extra metadata inherited by every record made inside. */
  withMetadata<T>(metadata: JsonObject, fn: () => T): T {
    const f = this.frame();
    return this.context.run(
      { sessionId: f?.sessionId, op: f?.op, metadata: { ...(f?.metadata ?? {}), ...metadata } },
      fn,
    );
  }

  // ---- variables -------------------------------------------------------------------

  private nameFor(value: unknown, options: VariableOptions): string {
    if (options.name !== undefined) return options.name;
    if (options.identity === 'object' && typeof value === 'object' && value !== null) {
      let id = this.objectIds.get(value);
      if (id === undefined) {
        id = this.nextObjectId;
        this.nextObjectId += 16;
        this.objectIds.set(value, id);
      }
      return `${pyTypeName(value)}:${id}`;
    }
    if (options.identity === 'custom') throw new Error("identity 'custom' needs a name");
    return contentName(value, this.sha1);
  }

  /**
   * Records a variable. The same identity with the same value is the same node (nothing
   * is written); a changed value makes a new version with no edge (or throws in strict mode —
   * use `mutate` for traced changes).
   */
  variable(value: unknown, options: VariableOptions = {}): TracedVar {
    const name = this.nameFor(value, options);
    if (name === SENTINEL_NAME) throw new Error(`the identity '${SENTINEL_NAME}' is reserved`);
    const className = options.className ?? null;
    const fullName = fullNameOf(name, className);
    const stored = (options.encode ?? this.encodeValue)(value);
    const chain = this.chains.get(fullName);
    if (chain && chain.value === stored) return chain.latest;
    if (chain && this.strict)
      throw new TraceConsistencyError(
        `the value of '${fullName}' changed without a traced mutation (strict mode)`,
      );
    return this.newVersion(name, className, stored, chain, options);
  }

  private newVersion(
    name: string,
    className: string | null,
    stored: string,
    chain: Chain | undefined,
    options: VariableOptions,
  ): TracedVar {
    const f = this.frame();
    const at = this.where(options.at);
    const category = options.category ?? chain?.category ?? 'variable';
    const comment = options.comment !== undefined ? options.comment : (chain?.comment ?? null);
    const v = this.writeNode(name, className, (chain?.version ?? 0) + 1, stored, {
      category,
      comment,
      metadata: { ...this.inherited(), ...(options.metadata ?? {}) },
      sessionId: options.session ? options.session.sessionId : (f?.sessionId ?? this.sessionOf(undefined)),
      at,
    });
    this.chains.set(v.fullName, { version: v.version, value: stored, category, comment, latest: v });
    return v;
  }

  /** The latest version of a full name, if recorded. */
  latest(fullName: string): TracedVar | undefined {
    return this.chains.get(fullName)?.latest;
  }

  // ---- operations ------------------------------------------------------------------

  private openOp(name: string | null, options: OperationOptions): OpScope {
    const sessionId = this.sessionOf(options.session);
    const metadata = { ...this.inherited(), ...(options.metadata ?? {}) };
    return new OpScope(
      this,
      `op-${this.ids()}`,
      name,
      options.category ?? 'operation',
      options.comment ?? null,
      metadata,
      sessionId,
      this.where(options.at),
      this.clock(),
    );
  }

  private closeOp(scope: OpScope) {
    const o = {
      category: scope.category,
      comment: scope.comment,
      metadata: scope.metadata,
      sessionId: scope.sessionId,
      at: scope.at,
    };
    this.writeOp(scope.opId, scope.name, { ...o, createdAt: formatTimestamp(scope.startedAt) });
    const inIds = new Set(scope.inputs.map((v) => v.fullNodeId));
    // A variable that is both input and output is an input here (it is not changed in place).
    const sources = scope.inputs.map((v) => v.fullNodeId);
    const targets = scope.outputs.map((v) => v.fullNodeId).filter((id) => !inIds.has(id));
    if (sources.length === 0 && targets.length === 0) return;
    if (sources.length === 0 || targets.length === 0) this.ensureSentinelNode();
    const src = sources.length ? sources : [SENTINEL_NODE_ID];
    const dst = targets.length ? targets : [SENTINEL_NODE_ID];
    for (const s of src) for (const t of dst) this.writeEdge(scope.opId, s, t, o);
  }

  /**
   * Runs fn inside an operation scope: `scope.input(...)`/`scope.output(...)` record the
   * variables; when fn returns (or its promise settles) the op and the edges inputs × outputs
   * are written. Variables made inside inherit the op's session and metadata.
   */
  op<T>(name: string | null, options: OperationOptions, fn: (scope: OpScope) => T): T {
    const scope = this.openOp(name, options);
    const parent = this.frame();
    const opFrame: OpFrame = { opId: scope.opId, metadata: scope.metadata };
    const frame: TraceFrame = { sessionId: scope.sessionId, op: opFrame, metadata: parent?.metadata ?? {} };
    let async = false;
    try {
      const out = this.context.run(frame, () => fn(scope));
      if (isPromiseLike(out)) {
        async = true;
        return Promise.resolve(out).finally(() => this.closeOp(scope)) as T;
      }
      return out;
    } finally {
      if (!async) this.closeOp(scope);
    }
  }

  /** Records a finished operation from known inputs and outputs. Returns its op_id. */
  operation(name: string | null, options: OneShotOperationOptions = {}): string {
    return this.op(name, options, (scope) => {
      for (const v of options.inputs ?? []) scope.input(v);
      for (const v of options.outputs ?? []) scope.output(v);
      return scope.opId;
    });
  }

  /** Wraps a function so every call is a traced operation (arguments in, result out). */
  wrap<A extends unknown[], R>(fn: (...args: A) => R, options: WrapOptions<A, R> = {}): (...args: A) => R {
    const name = options.name ?? (fn.name || null);
    return (...args: A): R =>
      this.op(name, options, (scope) => {
        if (options.inputs) options.inputs(scope, ...args);
        else for (const a of args) scope.input(a);
        const result = fn(...args);
        const record = (r: Awaited<R>) => {
          if (options.output) options.output(scope, r);
          else scope.output(r);
        };
        if (isPromiseLike(result))
          return Promise.resolve(result).then((r) => {
            record(r as Awaited<R>);
            return r;
          }) as R;
        record(result as Awaited<R>);
        return result;
      });
  }

  /** A manual edge (category `link`) under the current op, or the `__none_op__` sentinel outside one. */
  link(source: TracedVar, target: TracedVar, options: LinkOptions = {}): void {
    const f = this.frame();
    let opId = f?.op?.opId;
    if (!opId) {
      this.ensureSentinelOp();
      opId = SENTINEL_OP_ID;
    }
    this.writeEdge(opId, source.fullNodeId, target.fullNodeId, {
      category: options.category ?? 'link',
      comment: options.comment ?? null,
      metadata: { ...this.inherited(), ...(options.metadata ?? {}) },
      sessionId: this.sessionOf(undefined),
      at: this.where(options.at),
    });
  }

  /**
   * An in-place change of `target`: writes version n+1 of its name, an op (default
   * `mutation:<full_name>`, category `mutation`), the lineage edge old → new (comment
   * "Version lineage." unless given) and an edge from each extra input to the new version.
   */
  mutate(target: TracedVar, newValue: unknown, options: MutationOptions = {}): TracedVar {
    const scope = this.openOp(options.name ?? `mutation:${target.fullName}`, {
      ...options,
      category: options.category ?? 'mutation',
    });
    const parent = this.frame();
    const frame: TraceFrame = {
      sessionId: scope.sessionId,
      op: { opId: scope.opId, metadata: scope.metadata },
      metadata: parent?.metadata ?? {},
    };
    const chain = this.chains.get(target.fullName) ?? {
      version: target.version,
      value: target.value,
      category: 'variable',
      comment: null,
      latest: target,
    };
    const stored = (options.variable?.encode ?? this.encodeValue)(newValue);
    const next = this.context.run(frame, () =>
      this.newVersion(target.name, target.className, stored, chain, {
        at: scope.at,
        ...options.variable,
        session: options.session,
      }),
    );
    const o = {
      category: scope.category,
      comment: scope.comment,
      metadata: scope.metadata,
      sessionId: scope.sessionId,
      at: scope.at,
    };
    this.writeOp(scope.opId, scope.name, { ...o, createdAt: formatTimestamp(scope.startedAt) });
    this.writeEdge(scope.opId, target.fullNodeId, next.fullNodeId, {
      ...o,
      comment: options.comment ?? 'Version lineage.',
    });
    for (const v of options.inputs ?? [])
      if (v.fullNodeId !== target.fullNodeId) this.writeEdge(scope.opId, v.fullNodeId, next.fullNodeId, o);
    return next;
  }

  // ---- annotations and output ------------------------------------------------------

  /** Adds a MemTraceBench annotation (data.annotations). */
  annotate(annotation: Annotation): void {
    this.emit('annotations', annotation);
  }

  header(): TraceHeader {
    return {
      graph_id: this.graphId,
      user_id: this.userId,
      project_id: this.projectId,
      storage_path: this.storagePath,
      strict: this.strict,
      driver_type: 'in_memory',
      created_at: this.createdAt,
      metadata: this.metadata,
    };
  }

  /** The whole graph (in-memory sink only). */
  document(): TraceDocument {
    if (!(this.sink instanceof MemorySink)) throw new Error('document() needs the in-memory sink');
    return this.sink.document(this.header());
  }

  /** Ends the run: a streaming sink writes its file. No records can be added afterwards. */
  async finish(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.sink.close(this.header());
  }
}
