/**
 * Tracing SDK: records memory-system runs as smartcomment execution graphs.
 * Node-only helpers live in `context.node.ts` (AsyncLocalStorage) and `file-sink.node.ts`
 * (streaming a graph to disk); everything exported here runs in browsers and workers too.
 */

export { type Clock, formatTimestamp, steppingClock, systemClock } from './clock.ts';
export { type ContextProvider, type OpFrame, StackContext, type TraceFrame } from './context.ts';
export { contentName, PyFloat, PyTuple, pyJsonDumps, pyRepr, pyStrRepr, pyTypeName } from './encode.ts';
export { type IdSource, randomIds, seededIds } from './ids.ts';
export { type Mem0MemoryLike, type Mem0Message, type TraceMem0Options, traceMem0 } from './mem0ai.ts';
export type {
  Identity,
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
export { sha1Bytes, sha1Hex } from './sha1.ts';
export {
  DATA_LISTS,
  type GraphSink,
  MemorySink,
  MemorySpool,
  type RecordList,
  type Spool,
  StreamingSink,
  type StreamOutput,
  type TraceHeader,
} from './sink.ts';
export {
  isTracedVar,
  OpScope,
  SENTINEL_NAME,
  SENTINEL_NODE_ID,
  SENTINEL_OP_ID,
  SENTINEL_SESSION_ID,
  TraceConsistencyError,
  Tracer,
  type WrapOptions,
} from './tracer.ts';
