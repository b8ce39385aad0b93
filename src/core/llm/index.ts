/**
 * LLM providers behind one `ChatModel` interface. Pure: IO (fetch, clock, engine) is
 * injected. See docs/llm.md.
 */

export { emptyUsageTotals, metered, UsageMeter, type UsageTotals } from './accounting.ts';
export { AnthropicChatModel } from './anthropic.ts';
export { type CacheEntry, type CacheStore, cached, MemoryCacheStore, requestKey } from './cache.ts';
export { isLlmError, LlmError, type LlmErrorKind } from './errors.ts';
export { canonicalJson } from './hash.ts';
export { ConcurrencyLimit, mapLimited } from './limit.ts';
export { OpenAICompatibleChatModel } from './openai.ts';
export {
  createChatModel,
  exportSettings,
  importSettings,
  PRESETS,
  type Preset,
  type ProviderProfile,
  ProviderProfileSchema,
} from './profiles.ts';
export { redact } from './redact.ts';
export { robust } from './robust.ts';
export { ReplayChatModel, ScriptedChatModel, type ScriptReply } from './scripted.ts';
export { type ActionSpec, actionSchema, completeAction, completeJson, extractJson } from './structured.ts';
export { estimateMessageTokens, estimateOneMessageTokens, estimateTokens } from './tokens.ts';
export type {
  ChatCapabilities,
  ChatMessage,
  ChatModel,
  ChatRequest,
  ChatResponse,
  Clock,
  FetchLike,
  ProviderKind,
  Spent,
} from './types.ts';
export { spentOfError, spentOfResponse, withSpent } from './usage.ts';
export { WebLLMChatModel, type WebLLMEngine } from './webllm.ts';
export {
  detectGpu,
  formatMB,
  type GpuProbe,
  type GpuSupport,
  pickVariant,
  WEBLLM_MODELS,
  type WebLLMModel,
} from './webllm-models.ts';
