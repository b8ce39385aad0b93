/**
 * Reference memory systems (naive RAG, long-context, Mem0 classic, EverMemOS minimal),
 * traced with the SDK; data set loaders; judges; fault injection and counterfactual labels.
 */
export * from './benchmark.ts';
export * from './carrying.ts';
export * from './env.ts';
export * from './evermemos.ts';
export * from './fact-store.ts';
export * from './factory.ts';
export * from './inject.ts';
export * from './judge.ts';
export * from './judge-rules.ts';
export * from './lexical.ts';
export * from './llm.ts';
export * from './llm-bench.ts';
export * from './loaders/index.ts';
export * from './long-context.ts';
export * from './mem0.ts';
export * from './offline.ts';
export * from './per-user-store.ts';
export * from './prompts.ts';
export * from './rag.ts';
export * from './recorded.ts';
export * from './run.ts';
export * from './sessions.ts';
export * from './summary-memory.ts';
export * from './system.ts';
export * from './text.ts';
export * from './types.ts';
export * from './vector-memory.ts';
