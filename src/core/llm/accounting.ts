/** Token accounting per call and per run. */
import { realClock } from './clock.ts';
import { LlmError } from './errors.ts';
import { redact } from './redact.ts';
import type { ChatModel, Usage } from './types.ts';
import { spentOfError, spentOfResponse } from './usage.ts';

/**
 * One model call as the meter records it: provider, model, tag, timing, outcome, requests sent and tokens
 * counted.
 */
export interface CallRecord {
  provider: string;
  model: string;
  /** Free-form tag of what the call was for (e.g. "test connection", "attribute q12"). */
  label?: string;
  startedAt: number;
  ms: number;
  ok: boolean;
  /** Served from the response cache: cost nothing. */
  cached: boolean;
  /** Requests that reached the endpoint for this call (retries and failed attempts included). */
  requests: number;
  /** Tokens counted for this call (of a failed call: of the replies it received and could not use). */
  usage?: Usage;
  error?: { kind: string; message: string };
}

/** Sums over a meter's call records (`UsageMeter.totals`). */
export interface UsageTotals {
  /** Requests that reached the endpoint: every attempt, retries and failed calls included. */
  calls: number;
  /** Calls that ended in an error. */
  failed: number;
  /** Calls answered from the response cache (no request). */
  cached: number;
  inputTokens: number;
  outputTokens: number;
  /** Some of the counted tokens were estimated. */
  estimated: boolean;
}

/** Totals of no calls. */
export function emptyUsageTotals(): UsageTotals {
  return { calls: 0, failed: 0, cached: 0, inputTokens: 0, outputTokens: 0, estimated: false };
}

/** Collects call records; `totals()` sums the requests that reached the endpoint (cached calls cost nothing). */
export class UsageMeter {
  private readonly list: CallRecord[] = [];
  private readonly listeners = new Set<(r: CallRecord) => void>();

  get records(): readonly CallRecord[] {
    return this.list;
  }

  add(r: CallRecord) {
    this.list.push(r);
    for (const f of this.listeners) f(r);
  }

  subscribe(f: (r: CallRecord) => void): () => void {
    this.listeners.add(f);
    return () => this.listeners.delete(f);
  }

  totals(): UsageTotals {
    const t = emptyUsageTotals();
    for (const r of this.list) {
      t.calls += r.requests;
      if (!r.ok) t.failed++;
      if (r.cached) t.cached++;
      else if (r.usage) {
        t.inputTokens += r.usage.inputTokens;
        t.outputTokens += r.usage.outputTokens;
        t.estimated ||= r.usage.estimated;
      }
    }
    return t;
  }

  /** A run's accounting for export (no keys: records never hold request headers). */
  toJSON() {
    return { totals: this.totals(), calls: this.list };
  }
}

/**
 * Wraps a model so each call (success or failure) adds a `CallRecord` to `meter`, tokens and request count
 * included.
 */
export function metered(
  model: ChatModel,
  meter: UsageMeter,
  opts: { label?: string; now?: () => number } = {},
): ChatModel {
  const now = opts.now ?? realClock.now;
  return {
    provider: model.provider,
    model: model.model,
    capabilities: model.capabilities,
    async complete(req) {
      const startedAt = now();
      const base = { provider: model.provider, model: model.model, label: opts.label, startedAt };
      try {
        const res = await model.complete(req);
        const requests = spentOfResponse(res).calls;
        meter.add({
          ...base,
          ms: now() - startedAt,
          ok: true,
          cached: !!res.cached,
          requests,
          usage: res.usage,
        });
        return res;
      } catch (e) {
        const err = e instanceof LlmError ? e : new LlmError('bad-response', redact(String(e)));
        const { calls: requests, ...usage } = spentOfError(e);
        meter.add({
          ...base,
          ms: now() - startedAt,
          ok: false,
          cached: false,
          requests,
          usage,
          error: { kind: err.kind, message: err.message },
        });
        throw e;
      }
    },
  };
}
