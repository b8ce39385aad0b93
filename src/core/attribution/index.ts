export * from './case-context.ts';
export * from './evidence-flow.ts';
export * from './evidence-match.ts';
export * from './types.ts';
export * from './locate.ts';
