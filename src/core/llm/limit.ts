/** A counting semaphore: at most `n` calls in flight; waiters leave the queue when aborted. */
import { abortReason } from './clock.ts';

/**
 * At most `max` calls of `run` in flight at once; later ones wait in order, and a waiter whose signal
 * aborts leaves the queue.
 */
export class ConcurrencyLimit {
  private active = 0;
  private readonly queue: { resolve: () => void; reject: (e: unknown) => void; signal?: AbortSignal }[] = [];

  constructor(readonly max: number) {
    if (!(max >= 1)) throw new RangeError('concurrency must be at least 1');
  }

  get inFlight(): number {
    return this.active;
  }

  get waiting(): number {
    return this.queue.length;
  }

  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.active < this.max) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const entry = {
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject,
        signal,
      };
      const onAbort = () => {
        const i = this.queue.indexOf(entry);
        if (i >= 0) this.queue.splice(i, 1);
        reject(abortReason(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(entry);
    });
  }

  private release() {
    const next = this.queue.shift();
    if (next) next.resolve();
    else this.active--;
  }
}

/**
 * `work` over every item with at most `limit` running at once (a `ConcurrencyLimit`),
 * started in item order; resolves with the results in item order (rejects with the first failure).
 */
export function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const gate = new ConcurrencyLimit(Math.max(1, limit));
  return Promise.all(items.map((item, i) => gate.run(() => work(item, i))));
}
