/** The reference systems by name. */
import { EverMemOS } from './evermemos.ts';
import { FactStore } from './fact-store.ts';
import { LongContext } from './long-context.ts';
import { Mem0 } from './mem0.ts';
import { PerUserStore } from './per-user-store.ts';
import { NaiveRag } from './rag.ts';
import { SummaryMemory } from './summary-memory.ts';
import type { MemorySystem, ShapeName, SystemName } from './system.ts';
import { VectorMemory } from './vector-memory.ts';

/** Settings a run can change (the systems' defaults otherwise). */
export interface SystemSettings {
  /** Retrieval depth of `rag` and `mem0` (default 10). */
  topK?: number;
}

/** Systems whose retrieval depth `topK` sets. */
export const TOP_K_SYSTEMS: readonly SystemName[] = ['rag', 'mem0'];

export function createSystem(name: SystemName, settings: SystemSettings = {}): MemorySystem {
  switch (name) {
    case 'rag':
      return new NaiveRag({ topK: settings.topK });
    case 'long-context':
      return new LongContext();
    case 'mem0':
      return new Mem0(settings.topK);
    case 'evermemos':
      return new EverMemOS();
  }
}

/** The memory shapes of the recorded-memories benchmark by name. */
export function createShape(name: ShapeName): MemorySystem {
  switch (name) {
    case 'fact-store':
      return new FactStore();
    case 'session-summary':
      return new SummaryMemory();
    case 'vector-store':
      return new VectorMemory();
    case 'per-user-store':
      return new PerUserStore();
  }
}
