export * from './export.ts';
export * from './identity.ts';
export * from './import.ts';
export * from './issues.ts';
export * from './json-syntax.ts';
export * from './pyrepr.ts';
export * from './types.ts';
export * from './utf8.ts';
