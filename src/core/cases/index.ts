export * from './cases.ts';
export * from './system.ts';
