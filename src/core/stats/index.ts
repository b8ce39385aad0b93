export * from './stats.ts';
