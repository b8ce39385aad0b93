/**
 * Tracing SDK: records memory-system runs as smartcomment execution graphs.
 * Node-only helpers live in `context.node.ts` (AsyncLocalStorage) and `file-sink.node.ts`
 * (streaming a graph to disk); everything exported here runs in browsers and workers too.
 */
export * from './clock.ts';
export * from './context.ts';
export * from './encode.ts';
export * from './ids.ts';
export * from './mem0ai.ts';
export * from './sha1.ts';
export * from './sink.ts';
export * from './tracer.ts';
