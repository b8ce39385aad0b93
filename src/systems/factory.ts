/** The reference systems by name. */
import { EverMemOS } from './evermemos.ts';
import { LongContext } from './long-context.ts';
import { Mem0 } from './mem0.ts';
import { NaiveRag } from './rag.ts';
import type { MemorySystem, SystemName } from './system.ts';

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
