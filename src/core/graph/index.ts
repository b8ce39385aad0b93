export * from './graph.ts';
export * from './obs.ts';
export * from './open.ts';
export * from './paging.ts';
export * from './queries.ts';
export * from './render.ts';
export * from './search.ts';
