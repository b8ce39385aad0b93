/**
 * `robust(model, options)`: per-attempt timeouts, retries with exponential backoff and
 * equal jitter on 429 / 5xx / network errors (honouring Retry-After), cancellation, and
 * a concurrency limit — around any ChatModel.
 */
import { realClock } from './clock.ts';
import { LlmError } from './errors.ts';
import { ConcurrencyLimit } from './limit.ts';
import type { ChatModel, ChatRequest, ChatResponse, Clock, Spent } from './types.ts';
import { addSpent, noSpend, spentOfError, spentOfResponse, withSpent } from './usage.ts';

/** A retry about to happen: the failed attempt (1-based), the wait before the next one, and the error. */
export interface RetryInfo {
  attempt: number;
  delayMs: number;
  error: LlmError;
}

/**
 * Options of `robust`: retries, backoff, timeouts, deadline, concurrency, and injected clock, randomness
 * and timers.
 */
export interface RobustOptions {
  /** Retries after the first attempt (default 4). */
  retries?: number;
  /** First backoff (default 500 ms), doubled each retry, capped at `maxDelayMs` (default 30 s). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** A Retry-After longer than this fails at once with a clear message (default 120 s). */
  maxRetryAfterMs?: number;
  /** Per-attempt timeout (default 120 s; 0 = none). */
  timeoutMs?: number;
  /** Retries after an attempt that timed out (default 1: a hung server is not asked five times). */
  timeoutRetries?: number;
  /** One call, all its attempts and waits included, ends by this deadline (default 300 s; 0 = none). */
  deadlineMs?: number;
  /** Calls in flight at once (default 4); or share one `ConcurrencyLimit` across models. */
  concurrency?: number | ConcurrencyLimit;
  clock?: Clock;
  random?: () => number;
  timers?: { setTimeout: typeof setTimeout; clearTimeout: typeof clearTimeout };
  /** Called before each retry's wait (messages are already redacted). */
  onRetry?: (info: RetryInfo) => void;
}

/**
 * The wait before the retry after failed attempt `attempt` (0-based): between half and all of
 * min(`maxDelayMs`, `baseDelayMs` · 2^attempt), so never zero ("equal jitter").
 */
function backoffDelay(attempt: number, o: { baseDelayMs: number; maxDelayMs: number }, random: () => number) {
  const cap = Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** attempt);
  return Math.round(cap / 2 + (random() * cap) / 2); // "equal jitter": never zero, never above the cap
}

function toLlmError(e: unknown): LlmError {
  if (e instanceof LlmError) return e;
  if (e instanceof Error && e.name === 'AbortError')
    return new LlmError('aborted', 'The request was cancelled.');
  return new LlmError('bad-response', `Unexpected failure: ${e instanceof Error ? e.message : String(e)}`);
}

/** `RobustOptions` with their defaults, and the model they wrap. */
interface Robust {
  model: ChatModel;
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
  timeoutMs: number;
  timeoutRetries: number;
  deadlineMs: number;
  clock: Clock;
  random: () => number;
  timers: { setTimeout: typeof setTimeout; clearTimeout: typeof clearTimeout };
  onRetry?: (info: RetryInfo) => void;
}

/**
 * Wraps a model with per-attempt timeouts, retries of retryable errors (backoff, Retry-After honoured;
 * none once a stream has emitted text), an overall deadline, cancellation and a concurrency limit. A
 * failed call's error carries what all its attempts spent.
 */
export function robust(model: ChatModel, options: RobustOptions = {}): ChatModel {
  const r: Robust = {
    model,
    retries: options.retries ?? 4,
    baseDelayMs: options.baseDelayMs ?? 500,
    maxDelayMs: options.maxDelayMs ?? 30_000,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 120_000,
    timeoutMs: options.timeoutMs ?? 120_000,
    timeoutRetries: options.timeoutRetries ?? 1,
    deadlineMs: options.deadlineMs ?? 300_000,
    clock: options.clock ?? realClock,
    random: options.random ?? Math.random,
    // Wrapped: browsers throw "Illegal invocation" when setTimeout is called as a method of another object.
    timers: options.timers ?? {
      setTimeout: ((fn: () => void, ms: number) => globalThis.setTimeout(fn, ms)) as typeof setTimeout,
      clearTimeout: ((t: ReturnType<typeof setTimeout>) => globalThis.clearTimeout(t)) as typeof clearTimeout,
    },
    onRetry: options.onRetry,
  };
  const limit =
    options.concurrency instanceof ConcurrencyLimit
      ? options.concurrency
      : new ConcurrencyLimit(options.concurrency ?? 4);
  return {
    provider: model.provider,
    model: model.model,
    capabilities: model.capabilities,
    complete: (req) =>
      limit
        .run(() => withRetries(r, req), req.signal)
        .catch((e) => {
          // Only a call aborted while waiting for a slot has no note: it never left.
          throw e instanceof LlmError && !e.spent ? e.costing(noSpend()) : e;
        }),
  };
}

/** One attempt, aborted after `budget.ms` (the per-attempt timeout, or what is left of the deadline). */
async function attempt(
  r: Robust,
  req: ChatRequest,
  emitted: { any: boolean },
  budget: { ms: number; byDeadline: boolean },
): Promise<ChatResponse> {
  const { model, timers } = r;
  const ctl = new AbortController();
  const outer = req.signal;
  const onOuter = () => ctl.abort(outer!.reason ?? new LlmError('aborted', 'The request was cancelled.'));
  if (outer?.aborted) onOuter();
  else outer?.addEventListener('abort', onOuter, { once: true });
  const timer = Number.isFinite(budget.ms)
    ? timers.setTimeout(() => ctl.abort(timeoutError(r, budget.byDeadline)), Math.max(0, budget.ms))
    : undefined;
  try {
    return await model.complete({
      ...req,
      signal: ctl.signal,
      onToken: req.onToken
        ? (d) => {
            emitted.any = true;
            req.onToken!(d);
          }
        : undefined,
    });
  } catch (e) {
    const spent = spentOfError(e);
    // A user abort wins over whatever the provider made of it.
    if (outer?.aborted) throw withSpent(new LlmError('aborted', 'The request was cancelled.'), spent);
    if (ctl.signal.aborted && ctl.signal.reason instanceof LlmError)
      throw withSpent(ctl.signal.reason, spent);
    throw withSpent(toLlmError(e), spent);
  } finally {
    if (timer !== undefined) timers.clearTimeout(timer);
    outer?.removeEventListener('abort', onOuter);
  }
}

/** The error of an attempt that ran out of time: retryable after the per-attempt timeout, not after the deadline. */
function timeoutError(r: Robust, byDeadline: boolean): LlmError {
  const why = byDeadline
    ? `gave no answer within the call's deadline of ${r.deadlineMs / 1000} s`
    : `gave no complete answer within ${r.timeoutMs / 1000} s`;
  return new LlmError('timeout', `${r.model.provider} model "${r.model.model}" ${why}.`, {
    retryable: !byDeadline,
  });
}

// Every attempt's cost is summed into the answer (`calls`, usage) or the final error (`spent`).
async function withRetries(r: Robust, req: ChatRequest): Promise<ChatResponse> {
  const emitted = { any: false };
  const spent = noSpend();
  const start = r.clock.now();
  let timeouts = 0;
  for (let i = 0; ; i++) {
    const left = r.deadlineMs > 0 ? r.deadlineMs - (r.clock.now() - start) : Number.POSITIVE_INFINITY;
    const perAttempt = r.timeoutMs > 0 ? r.timeoutMs : Number.POSITIVE_INFINITY;
    try {
      const res = await attempt(r, req, emitted, {
        ms: Math.min(left, perAttempt),
        byDeadline: left < perAttempt,
      });
      const { calls, ...usage } = addSpent(spent, spentOfResponse(res));
      return res.cached ? { ...res, calls } : { ...res, calls, usage };
    } catch (e) {
      const err = withSpent(e as LlmError, addSpent(spent, spentOfError(e)));
      if (err.kind === 'timeout') timeouts++;
      // A stream that already showed tokens is not silently restarted; a hung server is retried less.
      if (!err.retryable || i >= r.retries || emitted.any || req.signal?.aborted) throw err;
      if (err.kind === 'timeout' && timeouts > r.timeoutRetries) throw err;
      const delayMs = retryDelay(r, err, i, spent);
      // No retry whose wait alone would run past the call's deadline.
      if (r.deadlineMs > 0 && r.clock.now() - start + delayMs >= r.deadlineMs) throw err;
      r.onRetry?.({ attempt: i + 1, delayMs, error: err });
      await r.clock.sleep(delayMs, req.signal).catch((x) => {
        throw withSpent(toLlmError(x), spent);
      });
    }
  }
}

/** The wait before retrying after failed attempt `i`: the backoff, or the server's Retry-After (failing at once when too long). */
function retryDelay(r: Robust, err: LlmError, i: number, spent: Spent): number {
  const delayMs = backoffDelay(i, r, r.random);
  if (err.retryAfterMs === undefined) return delayMs;
  if (err.retryAfterMs > r.maxRetryAfterMs)
    throw withSpent(
      new LlmError(
        err.kind,
        `${err.message} The server asks to wait ${Math.ceil(err.retryAfterMs / 1000)} s before retrying.`,
        { status: err.status, retryable: false, retryAfterMs: err.retryAfterMs },
      ),
      spent,
    );
  return err.retryAfterMs;
}
