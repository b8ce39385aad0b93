/**
 * The tracer's view of the current scope (from its `ContextProvider`): which session and
 * op records belong to, and the metadata they inherit from `withMetadata` and enclosing ops.
 */
import type { JsonObject } from '../core/trace/index.ts';
import type { ContextProvider, TraceFrame } from './context.ts';
import type { SessionHandle } from './options.ts';
import type { OpScope } from './scope.ts';

export class Scopes {
  constructor(
    private readonly context: ContextProvider,
    /** The session of records made outside every session (written on first use). */
    private readonly sentinelSession: () => string,
  ) {}

  current(): TraceFrame | undefined {
    return this.context.current();
  }

  /** The session a record belongs to: the explicit one, the enclosing one, else the sentinel. */
  sessionOf(explicit: SessionHandle | undefined): string {
    if (explicit) return explicit.sessionId;
    const id = this.current()?.sessionId;
    return id ? id : this.sentinelSession();
  }

  /** Metadata inherited from enclosing scopes (withMetadata, then the enclosing op). */
  inherited(): JsonObject {
    const f = this.current();
    if (!f) return {};
    return f.op ? { ...f.metadata, ...f.op.metadata } : f.metadata;
  }

  /** Runs fn with `session` as the current session. */
  inSession<T>(session: SessionHandle, fn: () => T): T {
    const f = this.current();
    return this.context.run({ sessionId: session.sessionId, op: f?.op, metadata: f?.metadata ?? {} }, fn);
  }

  /** Runs fn with extra metadata inherited by every record made inside. */
  withMetadata<T>(metadata: JsonObject, fn: () => T): T {
    const f = this.current();
    return this.context.run(
      { sessionId: f?.sessionId, op: f?.op, metadata: { ...(f?.metadata ?? {}), ...metadata } },
      fn,
    );
  }

  /** Runs fn inside the op `scope`: records made there take its session and metadata. */
  inOp<T>(scope: OpScope, fn: () => T): T {
    const parent = this.current();
    return this.context.run(
      {
        sessionId: scope.sessionId,
        op: { opId: scope.opId, metadata: scope.metadata },
        metadata: parent?.metadata ?? {},
      },
      fn,
    );
  }
}
