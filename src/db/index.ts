export * from './repo.ts';
export * from './schema.ts';
