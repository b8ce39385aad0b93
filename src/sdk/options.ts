/** The tracer's public option and handle types (what callers pass in and get back). */
import type { JsonObject } from '../core/trace/index.ts';
import type { Clock } from './clock.ts';
import type { ContextProvider } from './context.ts';
import type { IdSource } from './ids.ts';
import type { GraphSink } from './sink.ts';

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
  /** SHA-1 used for content names (`@noble/hashes` by default; Node's crypto is faster). */
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
