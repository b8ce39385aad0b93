export * from './agents/index.ts';
export * from './case-context.ts';
export * from './engines.ts';
export * from './evidence-flow.ts';
export * from './evidence-match.ts';
export * from './locate.ts';
export * from './types.ts';
