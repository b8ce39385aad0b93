/** The closed prompt-optimisation loop over reference systems (and the mem0ai wrapper), with an acceptance test. */
export * from './loop.ts';
export * from './rewrite.ts';
export * from './target.ts';
export * from './types.ts';
