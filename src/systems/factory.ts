/** The reference systems by name. */
import { EverMemOS } from './evermemos.ts';
import { FactStore } from './fact-store.ts';
import { LongContext } from './long-context.ts';
import { Mem0 } from './mem0.ts';
import { NaiveRag } from './rag.ts';
import { SummaryMemory } from './summary-memory.ts';
import type { MemorySystem, ShapeName, SystemName } from './system.ts';
import { VectorMemory } from './vector-memory.ts';

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

/** The memory shapes of the recorded-memories benchmark by name. */
export function createShape(name: ShapeName): MemorySystem {
  switch (name) {
    case 'fact-store':
      return new FactStore();
    case 'session-summary':
      return new SummaryMemory();
    case 'vector-store':
      return new VectorMemory();
  }
}
