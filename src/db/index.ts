export * from './labels.ts';
export * from './repo.ts';
export * from './schema.ts';
