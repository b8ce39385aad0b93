/**
 * Reference memory systems (naive RAG, long-context, Mem0 classic, EverMemOS minimal),
 * traced with the SDK; data set loaders; judges; fault injection and counterfactual labels.
 */
import { EverMemOS } from './evermemos.ts';
import { LongContext } from './long-context.ts';
import { Mem0 } from './mem0.ts';
import { NaiveRag } from './rag.ts';
import type { MemorySystem, SystemName } from './system.ts';

export * from './env.ts';
export * from './evermemos.ts';
export * from './judge.ts';
export * from './lexical.ts';
export * from './llm.ts';
export * from './loaders/index.ts';
export * from './long-context.ts';
export * from './mem0.ts';
export * from './offline.ts';
export * from './prompts.ts';
export * from './rag.ts';
export * from './run.ts';
export * from './system.ts';
export * from './text.ts';
export * from './types.ts';

export function createSystem(name: SystemName): MemorySystem {
  switch (name) {
    case 'rag':
      return new NaiveRag();
    case 'long-context':
      return new LongContext();
    case 'mem0':
      return new Mem0();
    case 'evermemos':
      return new EverMemOS();
  }
}
