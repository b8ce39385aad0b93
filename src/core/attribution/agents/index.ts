export * from './frontier.ts';
export * from './memtrace.ts';
export * from './obs.ts';
export * from './oracle.ts';
export * from './prior.ts';
export * from './prompts.ts';
export * from './runtime.ts';
