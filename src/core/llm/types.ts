/**
 * The one interface every LLM provider implements (OpenAI-compatible HTTP, Anthropic,
 * WebLLM, scripted/replay). Pure types: no IO here.
 */

/** A JSON Schema object (as produced by `z.toJSONSchema`). */
export type JsonSchema = Record<string, unknown>;

/** A native tool call the model made. */
export interface ToolCall {
  /** Provider-assigned id, echoed back in the `tool` message that answers it. */
  id: string;
  name: string;
  /** The arguments as the model wrote them (a JSON string, possibly malformed). */
  arguments: string;
}

/** One turn of a conversation, by role; a `tool` message answers the tool call with `toolCallId`. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name?: string; content: string };

/** A native tool offered to the model: its name, description and argument schema. */
export interface ToolSpec {
  name: string;
  description?: string;
  /** JSON Schema of the arguments object. */
  parameters: JsonSchema;
}

/** `json`: ask for a JSON object (native JSON mode where the provider has one); `schema` is a hint. */
export type ResponseFormat = { type: 'text' } | { type: 'json'; schema?: JsonSchema; name?: string };

/**
 * One chat completion request, provider-neutral: messages, output shape (JSON or tools), sampling,
 * cancellation and streaming.
 */
export interface ChatRequest {
  messages: ChatMessage[];
  responseFormat?: ResponseFormat;
  tools?: ToolSpec[];
  /** Force a tool: `'auto'` (default when tools are given), `'required'`, or a tool name. */
  toolChoice?: 'auto' | 'required' | { name: string };
  temperature?: number;
  maxTokens?: number;
  signal?: AbortSignal;
  /** Stream the reply; `onToken` receives text deltas as they arrive. */
  stream?: boolean;
  onToken?: (delta: string) => void;
}

/** Tokens of a call, reported by the provider or estimated. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** True when the provider reported no counts and they were estimated from text. */
  estimated: boolean;
}

/** Why the model stopped, mapped from each provider's own values. */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'unknown';

/**
 * A provider-neutral answer: text and tool calls, usage, the model that answered, why it stopped, and
 * cache/request bookkeeping.
 */
export interface ChatResponse {
  text: string;
  toolCalls?: ToolCall[];
  usage: Usage;
  /** The model the provider says answered (may differ from the one asked for). */
  model: string;
  finishReason: FinishReason;
  /** Set by the response cache when this answer was replayed from it. */
  cached?: boolean;
  /**
   * Requests this answer took at the endpoint, failed attempts and retries included (set by
   * `robust()`; 0 for a cache hit). Absent = 1. `usage` holds the tokens of the answers received.
   */
  calls?: number;
}

/** What one or more calls cost: requests that reached the endpoint, and the tokens counted. */
export interface Spent extends Usage {
  calls: number;
}

/** The provider kinds a profile can name. */
export const providerKinds = ['openai', 'anthropic', 'webllm'] as const;

/** The kinds of provider behind a `ChatModel`: those a profile names, and `scripted` (the test double). */
export type ProviderKind = (typeof providerKinds)[number] | 'scripted';

/** What a provider supports: native tools, native JSON mode, streaming, and its context window. */
export interface ChatCapabilities {
  nativeTools: boolean;
  /** Native JSON output mode (`response_format`). */
  jsonMode: boolean;
  streaming: boolean;
  /** Context window in tokens, when known. */
  contextWindow?: number;
}

/** The one interface every LLM provider implements: a model name, its capabilities and `complete`. */
export interface ChatModel {
  readonly provider: ProviderKind;
  /** The model asked for, e.g. `gpt-4o-mini` or `Qwen3-4B-q4f16_1-MLC`. */
  readonly model: string;
  readonly capabilities: ChatCapabilities;
  complete(request: ChatRequest): Promise<ChatResponse>;
}

/** Injected IO: everything a provider touches outside its arguments. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Injected time: the current time in ms and an abortable sleep. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`; if the signal aborts first, rejects with `abortReason(signal)`: its reason when that is an `LlmError`, else an `aborted` one. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}
