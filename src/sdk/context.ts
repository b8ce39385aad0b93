/**
 * Where the tracer finds the current session, operation and propagated metadata.
 * The default `StackContext` is a plain stack: right for synchronous code and for
 * one async flow at a time (the browser, a worker). In Node, `AsyncLocalContext`
 * (context.node.ts) keeps concurrent async flows apart.
 */
import type { JsonObject } from '../core/trace/index.ts';

/** What a scope contributes: the active session and op, and metadata inherited by records made inside. */
export interface TraceFrame {
  sessionId?: string;
  op?: OpFrame;
  metadata: JsonObject;
}

/** The part of an open operation scope that records made inside it need. */
export interface OpFrame {
  opId: string;
  metadata: JsonObject;
}

export interface ContextProvider {
  current(): TraceFrame | undefined;
  /** Runs fn with `frame` as the current frame; the frame ends when fn returns or its promise settles. */
  run<T>(frame: TraceFrame, fn: () => T): T;
}

function isPromiseLike(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

export class StackContext implements ContextProvider {
  private stack: TraceFrame[] = [];
  current(): TraceFrame | undefined {
    return this.stack[this.stack.length - 1];
  }
  run<T>(frame: TraceFrame, fn: () => T): T {
    this.stack.push(frame);
    let async = false;
    try {
      const out = fn();
      if (isPromiseLike(out)) {
        async = true;
        const pop = () => {
          const i = this.stack.lastIndexOf(frame);
          if (i >= 0) this.stack.splice(i, 1);
        };
        return Promise.resolve(out).finally(pop) as T;
      }
      return out;
    } finally {
      if (!async) {
        const i = this.stack.lastIndexOf(frame);
        if (i >= 0) this.stack.splice(i, 1);
      }
    }
  }
}
