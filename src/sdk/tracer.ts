/**
 * The tracer: the TypeScript counterpart of the smartcomment toolkit. It records
 * sessions, variables (with identity strategies and version chains), operations
 * (edges = inputs × outputs), links and mutations. The parts live in their own modules:
 * option types (`options.ts`), naming (`naming.ts`), scopes (`scopes.ts`), op scopes
 * (`scope.ts`), record writing in the toolkit's field order (`records.ts`), call sites
 * (`callsite.ts`); this class wires them and is the public face.
 */

import { type Annotation, fullNameOf, type JsonObject, type TraceDocument } from '../core/trace/index.ts';
import { placer } from './callsite.ts';
import { formatTimestamp, systemClock } from './clock.ts';
import { StackContext } from './context.ts';
import { pyRepr } from './encode.ts';
import { type IdSource, randomIds } from './ids.ts';
import { VariableNamer } from './naming.ts';
import type {
  LinkOptions,
  Location,
  MutationOptions,
  OneShotOperationOptions,
  OperationOptions,
  SessionHandle,
  SessionOptions,
  TracedVar,
  TracerOptions,
  VariableOptions,
} from './options.ts';
import { RecordWriter, SENTINEL_NAME } from './records.ts';
import { OpScope, opEdges, type WrapOptions } from './scope.ts';
import { Scopes } from './scopes.ts';
import { sha1Hex } from './sha1.ts';
import { type GraphSink, MemorySink, type TraceHeader } from './sink.ts';

export type * from './options.ts';
export { SENTINEL_NAME, SENTINEL_NODE_ID, SENTINEL_OP_ID, SENTINEL_SESSION_ID } from './records.ts';
export { isTracedVar, OpScope, type WrapOptions } from './scope.ts';

export class TraceConsistencyError extends Error {}

/** The latest version of one identity (its full name). */
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

export class Tracer {
  readonly graphId: string;
  readonly userId: string | null;
  readonly projectId: string | null;
  readonly strict: boolean;
  readonly metadata: JsonObject;
  private readonly createdAt: string;
  private readonly clock: () => number;
  private readonly ids: IdSource;
  private readonly sink: GraphSink;
  private readonly records: RecordWriter;
  private readonly scopes: Scopes;
  private readonly namer: VariableNamer;
  private readonly where: (at: Location | undefined) => Location;
  private readonly encodeValue: (value: unknown) => string;
  private readonly storagePath: string | null;
  private readonly chains = new Map<string, Chain>();
  private closed = false;

  constructor(options: TracerOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? randomIds;
    this.sink = options.sink ?? new MemorySink();
    this.graphId = options.graphId ?? `graph-${this.ids()}`;
    this.userId = options.userId ?? null;
    this.projectId = options.projectId ?? null;
    this.storagePath = options.storagePath ?? null;
    this.strict = options.strict ?? false;
    this.metadata = options.metadata ?? {};
    this.where = placer(options.filename ?? '<typescript>', options.callsite ?? 'fixed');
    this.encodeValue = options.encode ?? ((v) => pyRepr(v));
    this.namer = new VariableNamer(options.sha1 ?? sha1Hex);
    this.records = new RecordWriter(
      { graphId: this.graphId, userId: this.userId, projectId: this.projectId },
      this.clock,
      this.ids,
      this.sink,
    );
    this.scopes = new Scopes(options.context ?? new StackContext(), () => this.records.sentinelSession());
    this.createdAt = this.records.now();
  }

  /** Counts of records written (for progress and benchmarks). */
  get counts(): Readonly<RecordWriter['counts']> {
    return this.records.counts;
  }

  /** The op_id of the last operation written (after `mutate`, the mutation's op). */
  get lastOpId(): string | null {
    return this.records.lastOpId;
  }

  // ---- sessions --------------------------------------------------------------------

  /** Opens a session explicitly (browser style): pass it as `session` or run code with `within`. */
  startSession(name: string, options: SessionOptions = {}): SessionHandle {
    const sessionId = options.id ?? `session-${this.ids()}`;
    this.records.session(sessionId, name, {
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
    return this.scopes.inSession(session, fn);
  }

  /** Runs fn with extra metadata inherited by every record made inside. */
  withMetadata<T>(metadata: JsonObject, fn: () => T): T {
    return this.scopes.withMetadata(metadata, fn);
  }

  // ---- variables -------------------------------------------------------------------

  /**
   * Records a variable. The same identity with the same value is the same node (nothing
   * is written); a changed value makes a new version with no edge (or throws in strict mode —
   * use `mutate` for traced changes).
   */
  variable(value: unknown, options: VariableOptions = {}): TracedVar {
    const name = this.namer.nameFor(value, options);
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
    const f = this.scopes.current();
    const at = this.where(options.at);
    const category = options.category ?? chain?.category ?? 'variable';
    const comment = options.comment !== undefined ? options.comment : (chain?.comment ?? null);
    const v = this.records.node(name, className, (chain?.version ?? 0) + 1, stored, {
      category,
      comment,
      metadata: { ...this.scopes.inherited(), ...(options.metadata ?? {}) },
      sessionId: options.session
        ? options.session.sessionId
        : (f?.sessionId ?? this.scopes.sessionOf(undefined)),
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
    const sessionId = this.scopes.sessionOf(options.session);
    const metadata = { ...this.scopes.inherited(), ...(options.metadata ?? {}) };
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

  /** The op's own fields, shared by its record and its edges. */
  private fieldsOf(scope: OpScope) {
    return {
      category: scope.category,
      comment: scope.comment,
      metadata: scope.metadata,
      sessionId: scope.sessionId,
      at: scope.at,
    };
  }

  private writeOp(scope: OpScope) {
    this.records.op(scope.opId, scope.name, {
      ...this.fieldsOf(scope),
      createdAt: formatTimestamp(scope.startedAt),
    });
  }

  private closeOp(scope: OpScope) {
    this.writeOp(scope);
    const fields = this.fieldsOf(scope);
    for (const [s, t] of opEdges(scope, () => this.records.sentinelNode()))
      this.records.edge(scope.opId, s, t, fields);
  }

  /**
   * Runs fn inside an operation scope: `scope.input(...)`/`scope.output(...)` record the
   * variables; when fn returns (or its promise settles) the op and the edges inputs × outputs
   * are written. Variables made inside inherit the op's session and metadata.
   */
  op<T>(name: string | null, options: OperationOptions, fn: (scope: OpScope) => T): T {
    const scope = this.openOp(name, options);
    let async = false;
    try {
      const out = this.scopes.inOp(scope, () => fn(scope));
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
    const opId = this.scopes.current()?.op?.opId || this.records.sentinelOp();
    this.records.edge(opId, source.fullNodeId, target.fullNodeId, {
      category: options.category ?? 'link',
      comment: options.comment ?? null,
      metadata: { ...this.scopes.inherited(), ...(options.metadata ?? {}) },
      sessionId: this.scopes.sessionOf(undefined),
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
    const chain = this.chains.get(target.fullName) ?? {
      version: target.version,
      value: target.value,
      category: 'variable',
      comment: null,
      latest: target,
    };
    const stored = (options.variable?.encode ?? this.encodeValue)(newValue);
    const next = this.scopes.inOp(scope, () =>
      this.newVersion(target.name, target.className, stored, chain, {
        at: scope.at,
        ...options.variable,
        session: options.session,
      }),
    );
    this.writeOp(scope);
    const fields = this.fieldsOf(scope);
    this.records.edge(scope.opId, target.fullNodeId, next.fullNodeId, {
      ...fields,
      comment: options.comment ?? 'Version lineage.',
    });
    for (const v of options.inputs ?? [])
      if (v.fullNodeId !== target.fullNodeId)
        this.records.edge(scope.opId, v.fullNodeId, next.fullNodeId, fields);
    return next;
  }

  // ---- annotations and output ------------------------------------------------------

  /** Adds a MemTraceBench annotation (data.annotations). */
  annotate(annotation: Annotation): void {
    this.records.annotation(annotation);
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
    this.records.close();
    await this.sink.close(this.header());
  }
}
