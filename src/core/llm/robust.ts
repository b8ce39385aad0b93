/**
 * `robust(model, options)`: per-attempt timeouts, retries with exponential backoff and
 * equal jitter on 429 / 5xx / network errors (honouring Retry-After), cancellation, and
 * a concurrency limit — around any ChatModel.
 */
import { realClock } from './clock.ts';
import { LlmError } from './errors.ts';
import { ConcurrencyLimit } from './limit.ts';
import type { ChatModel, ChatRequest, ChatResponse, Clock } from './types.ts';
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

/**
 * Wraps a model with per-attempt timeouts, retries of retryable errors (backoff, Retry-After honoured;
 * none once a stream has emitted text), an overall deadline, cancellation and a concurrency limit. A
 * failed call's error carries what all its attempts spent.
 */
export function robust(model: ChatModel, options: RobustOptions = {}): ChatModel {
  const retries = options.retries ?? 4;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 120_000;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const timeoutRetries = options.timeoutRetries ?? 1;
  const deadlineMs = options.deadlineMs ?? 300_000;
  const clock = options.clock ?? realClock;
  const random = options.random ?? Math.random;
  // Wrapped: browsers throw "Illegal invocation" when setTimeout is called as a method of another object.
  const timers = options.timers ?? {
    setTimeout: ((fn: () => void, ms: number) => globalThis.setTimeout(fn, ms)) as typeof setTimeout,
    clearTimeout: ((t: ReturnType<typeof setTimeout>) => globalThis.clearTimeout(t)) as typeof clearTimeout,
  };
  const limit =
    options.concurrency instanceof ConcurrencyLimit
      ? options.concurrency
      : new ConcurrencyLimit(options.concurrency ?? 4);

  /** One attempt, aborted after `budgetMs` (the per-attempt timeout, or what is left of the deadline). */
  async function attempt(
    req: ChatRequest,
    emitted: { any: boolean },
    budgetMs: number,
    byDeadline: boolean,
  ): Promise<ChatResponse> {
    const ctl = new AbortController();
    const outer = req.signal;
    const onOuter = () => ctl.abort(outer!.reason ?? new LlmError('aborted', 'The request was cancelled.'));
    if (outer?.aborted) onOuter();
    else outer?.addEventListener('abort', onOuter, { once: true });
    const why = byDeadline
      ? `gave no answer within the call's deadline of ${deadlineMs / 1000} s`
      : `gave no complete answer within ${timeoutMs / 1000} s`;
    const timer = Number.isFinite(budgetMs)
      ? timers.setTimeout(
          () =>
            ctl.abort(
              new LlmError('timeout', `${model.provider} model "${model.model}" ${why}.`, {
                retryable: !byDeadline,
              }),
            ),
          Math.max(0, budgetMs),
        )
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

  // Every attempt's cost is summed into the answer (`calls`, usage) or the final error (`spent`).
  async function withRetries(req: ChatRequest): Promise<ChatResponse> {
    const emitted = { any: false };
    const spent = noSpend();
    const start = clock.now();
    let timeouts = 0;
    for (let i = 0; ; i++) {
      const left = deadlineMs > 0 ? deadlineMs - (clock.now() - start) : Number.POSITIVE_INFINITY;
      const perAttempt = timeoutMs > 0 ? timeoutMs : Number.POSITIVE_INFINITY;
      try {
        const res = await attempt(req, emitted, Math.min(left, perAttempt), left < perAttempt);
        const { calls, ...usage } = addSpent(spent, spentOfResponse(res));
        return res.cached ? { ...res, calls } : { ...res, calls, usage };
      } catch (e) {
        const err = withSpent(e as LlmError, addSpent(spent, spentOfError(e)));
        if (err.kind === 'timeout') timeouts++;
        // A stream that already showed tokens is not silently restarted; a hung server is retried less.
        if (!err.retryable || i >= retries || emitted.any || req.signal?.aborted) throw err;
        if (err.kind === 'timeout' && timeouts > timeoutRetries) throw err;
        let delayMs = backoffDelay(i, { baseDelayMs, maxDelayMs }, random);
        if (err.retryAfterMs !== undefined) {
          if (err.retryAfterMs > maxRetryAfterMs)
            throw withSpent(
              new LlmError(
                err.kind,
                `${err.message} The server asks to wait ${Math.ceil(err.retryAfterMs / 1000)} s before retrying.`,
                { status: err.status, retryable: false, retryAfterMs: err.retryAfterMs },
              ),
              spent,
            );
          delayMs = err.retryAfterMs;
        }
        // No retry whose wait alone would run past the call's deadline.
        if (deadlineMs > 0 && clock.now() - start + delayMs >= deadlineMs) throw err;
        options.onRetry?.({ attempt: i + 1, delayMs, error: err });
        await clock.sleep(delayMs, req.signal).catch((x) => {
          throw withSpent(toLlmError(x), spent);
        });
      }
    }
  }

  return {
    provider: model.provider,
    model: model.model,
    capabilities: model.capabilities,
    complete: (req) =>
      limit
        .run(() => withRetries(req), req.signal)
        .catch((e) => {
          // Only a call aborted while waiting for a slot has no note: it never left.
          throw e instanceof LlmError && !e.spent ? e.costing(noSpend()) : e;
        }),
  };
}
