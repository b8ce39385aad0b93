export * from './compare.ts';
export * from './divergence.ts';
export * from './explain.ts';
export * from './memory.ts';
export * from './questions.ts';
export * from './value-hash.ts';
