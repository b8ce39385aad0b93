export * from './cases.ts';
export * from './path.ts';
export * from './system.ts';
