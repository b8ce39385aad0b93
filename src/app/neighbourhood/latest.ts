/**
 * Newest-wins requests to a worker, a view's proxy: one request runs at a time, and a newer
 * one aborts it (its `AbortSignal` crosses to the worker, which stops at its next check) —
 * the waiting one is dropped unsent. Both older promises reject with `Superseded`. So when
 * the selection changes quickly the worker computes at most the running request (until it
 * sees the abort) and the newest one, never the ones in between.
 */
export class Superseded extends Error {
  constructor() {
    super('superseded by a newer request');
    this.name = 'Superseded';
  }
}

interface Waiting<T> {
  run: (signal: AbortSignal) => Promise<T>;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
}

export class LatestOnly<T> {
  #running: AbortController | null = null;
  #waiting: Waiting<T> | null = null;

  /** Runs `run` now, or once the running request (aborted now) has ended, when it is still the newest. */
  request(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiting?.reject(new Superseded());
      this.#waiting = { run, resolve, reject };
      if (this.#running) this.#running.abort();
      else this.#next();
    });
  }

  #next(): void {
    const w = this.#waiting;
    if (!w) return;
    this.#waiting = null;
    const controller = new AbortController();
    this.#running = controller;
    let p: Promise<T>;
    try {
      p = w.run(controller.signal);
    } catch (e) {
      p = Promise.reject(e);
    }
    p.then(
      (v) => (controller.signal.aborted ? w.reject(new Superseded()) : w.resolve(v)),
      (e) => w.reject(controller.signal.aborted ? new Superseded() : e),
    ).finally(() => {
      this.#running = null;
      this.#next();
    });
  }
}
