/**
 * The page's chat model as a worker sees it: what it knows of the model, the port it calls
 * through (keys and endpoints stay in the page) and the `ChatModel` over that port. Imports
 * only core, so the services and the typed APIs (api.ts) share it without importing each other.
 */
import {
  type ChatCapabilities,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  LlmError,
  type LlmErrorKind,
  type ProviderKind,
  type Spent,
} from '../src/core/llm/index.ts';

/** What the worker knows of the page's chat model (no key, no endpoint). */
export interface ModelInfo {
  provider: ProviderKind;
  model: string;
  capabilities: ChatCapabilities;
}

/** A chat request as it crosses to the page (the abort signal and token callback stay behind). */
export type PortRequest = Omit<ChatRequest, 'signal' | 'onToken'>;

/** A call's outcome: errors cross as data so their kind survives. */
export type PortResult =
  | { ok: true; response: ChatResponse }
  /** `spent`: what the failed call cost (requests, tokens), so the worker's run counts it. */
  | { ok: false; kind: string; message: string; spent?: Spent };

/**
 * The page's chat model as the worker sees it (a comlink proxy). A call's `signal` crosses
 * as a signal of its own (abort-transfer.ts): aborting it in the worker aborts the page's call.
 */
export interface ModelPort {
  complete(request: PortRequest, signal?: AbortSignal): Promise<PortResult>;
}

/** The page's model seen from the worker: a request crosses with its signal, not its token callback. */
export class PortChatModel implements ChatModel {
  readonly provider;
  readonly model;
  readonly capabilities;

  constructor(
    info: ModelInfo,
    private readonly port: ModelPort,
  ) {
    this.provider = info.provider;
    this.model = info.model;
    this.capabilities = { ...info.capabilities };
  }

  async complete(req: ChatRequest): Promise<ChatResponse> {
    const { signal, onToken: _onToken, ...request } = req;
    if (signal?.aborted) throw new LlmError('aborted', 'The run was cancelled.');
    let onAbort: (() => void) | undefined;
    // The page answers an aborted call too (as an `aborted` error), but the run need not wait for it.
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new LlmError('aborted', 'The run was cancelled.'));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const r = await Promise.race([this.port.complete(request, signal), aborted]);
      if (!r.ok) throw new LlmError(r.kind as LlmErrorKind, r.message, { spent: r.spent });
      return r.response;
    } finally {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }
}
