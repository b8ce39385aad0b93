/**
 * LLM providers behind one `ChatModel` interface. Pure: IO (fetch, clock, engine) is
 * injected. See docs/llm.md.
 */
export * from './accounting.ts';
export * from './anthropic.ts';
export * from './cache.ts';
export * from './clock.ts';
export * from './errors.ts';
export * from './hash.ts';
export * from './limit.ts';
export * from './openai.ts';
export * from './profiles.ts';
export * from './redact.ts';
export * from './robust.ts';
export * from './scripted.ts';
export * from './structured.ts';
export * from './tokens.ts';
export * from './types.ts';
export * from './usage.ts';
export * from './webllm.ts';
export * from './webllm-models.ts';
