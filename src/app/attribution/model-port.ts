/**
 * The page side of the worker's chat model: the engine worker runs the agent loop and
 * calls `complete` through a comlink proxy of this port; the model (with its key, retries,
 * cache and token meter) stays here. Errors cross as data; a call's signal crosses with it
 * (workers/abort-transfer.ts), so the worker aborting it aborts the call here.
 */
import type { ModelInfo, ModelPort, PortRequest, PortResult } from '../../../workers/api.ts';
import { type ChatModel, isLlmError, spentOfError } from '../../core/llm/index.ts';

export function modelInfo(model: ChatModel): ModelInfo {
  return { provider: model.provider, model: model.model, capabilities: { ...model.capabilities } };
}

export function modelPort(model: ChatModel): ModelPort & { readonly pending: number } {
  let pending = 0;
  return {
    /** Calls in flight (a test's view of whether an aborted run left one behind). */
    get pending() {
      return pending;
    },
    async complete(request: PortRequest, signal?: AbortSignal): Promise<PortResult> {
      pending++;
      try {
        const r = await model.complete({ ...request, signal });
        // Only plain data crosses back.
        const response = {
          text: r.text,
          usage: { ...r.usage },
          model: r.model,
          finishReason: r.finishReason,
          ...(r.toolCalls ? { toolCalls: r.toolCalls.map((c) => ({ ...c })) } : {}),
          ...(r.cached !== undefined ? { cached: r.cached } : {}),
          ...(r.calls !== undefined ? { calls: r.calls } : {}),
        };
        return { ok: true, response };
      } catch (e) {
        const kind = isLlmError(e) ? e.kind : signal?.aborted ? 'aborted' : 'network';
        return {
          ok: false,
          kind,
          message: e instanceof Error ? e.message : String(e),
          spent: spentOfError(e),
        };
      } finally {
        pending--;
      }
    },
  };
}
