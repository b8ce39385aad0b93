/** An open operation: the variables it reads and writes, collected until it ends. */
import type { JsonObject } from '../core/trace/index.ts';
import type { Location, OperationOptions, TracedVar, VariableOptions } from './options.ts';

/** What a scope records variables with (the tracer). */
interface VariableRecorder {
  variable(value: unknown, options?: VariableOptions): TracedVar;
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

/** A scope of one operation: inputs and outputs are collected, the edges I × O written when it ends. */
export class OpScope {
  readonly inputs: TracedVar[] = [];
  readonly outputs: TracedVar[] = [];
  metadata: JsonObject;
  comment: string | null;
  constructor(
    private readonly recorder: VariableRecorder,
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
    const v = isTracedVar(value) ? value : this.recorder.variable(value, this.defaults(options));
    if (!this.inputs.some((x) => x.fullNodeId === v.fullNodeId)) this.inputs.push(v);
    return v;
  }
  /** Records (or reuses) a variable and marks it an output. */
  output(value: unknown, options: VariableOptions = {}): TracedVar {
    const v = isTracedVar(value) ? value : this.recorder.variable(value, this.defaults(options));
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

export interface WrapOptions<A extends unknown[], R> extends OperationOptions {
  name?: string;
  /** Traces the arguments as inputs; default: each argument by content. */
  inputs?: (scope: OpScope, ...args: A) => void;
  /** Traces the result as an output; default: by content. */
  output?: (scope: OpScope, result: Awaited<R>) => void;
}

/**
 * The edges of a finished op as (source, target) full node ids: inputs × outputs, a
 * variable both read and written counting as an input (it was not changed in place),
 * and `sentinel()` standing in for a missing side. None when the op touched nothing.
 */
export function opEdges(scope: OpScope, sentinel: () => string): [string, string][] {
  const inIds = new Set(scope.inputs.map((v) => v.fullNodeId));
  const sources = scope.inputs.map((v) => v.fullNodeId);
  const targets = scope.outputs.map((v) => v.fullNodeId).filter((id) => !inIds.has(id));
  if (sources.length === 0 && targets.length === 0) return [];
  const src = sources.length ? sources : [sentinel()];
  const dst = targets.length ? targets : [sentinel()];
  const out: [string, string][] = [];
  for (const s of src) for (const t of dst) out.push([s, t]);
  return out;
}
