export * from './labels.ts';
export * from './record-versions.ts';
export * from './repo.ts';
export * from './schema.ts';
