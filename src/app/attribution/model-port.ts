/**
 * The page side of the worker's chat model: the engine worker runs the agent loop and
 * calls `complete` through a comlink proxy of this port; the model (with its key, retries,
 * cache and token meter) stays here. Errors cross as data; `abort` cancels a call.
 */
import type { ModelInfo, ModelPort, PortRequest, PortResult } from '../../../workers/api.ts';
import { type ChatModel, isLlmError, spentOfError } from '../../core/llm/index.ts';

export function modelInfo(model: ChatModel): ModelInfo {
  return { provider: model.provider, model: model.model, capabilities: { ...model.capabilities } };
}

export function modelPort(model: ChatModel): ModelPort & { readonly pending: number } {
  const calls = new Map<number, AbortController>();
  return {
    get pending() {
      return calls.size;
    },
    async complete(callId: number, request: PortRequest): Promise<PortResult> {
      const ctrl = new AbortController();
      calls.set(callId, ctrl);
      try {
        const r = await model.complete({ ...request, signal: ctrl.signal });
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
        const kind = isLlmError(e) ? e.kind : ctrl.signal.aborted ? 'aborted' : 'network';
        return {
          ok: false,
          kind,
          message: e instanceof Error ? e.message : String(e),
          spent: spentOfError(e),
        };
      } finally {
        calls.delete(callId);
      }
    },
    abort(callId: number) {
      calls.get(callId)?.abort();
    },
  };
}
