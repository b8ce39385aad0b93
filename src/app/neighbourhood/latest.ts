/**
 * Newest-wins requests to a worker: one request runs at a time; a request made while
 * one runs waits, and a newer one drops it unsent (its promise rejects with
 * `Superseded`). So when the selection changes quickly the worker computes at most the
 * running layout and the newest one, never the ones in between.
 */
export class Superseded extends Error {
  constructor() {
    super('superseded by a newer request');
    this.name = 'Superseded';
  }
}

interface Waiting<T> {
  run: () => Promise<T>;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
}

export class LatestOnly<T> {
  #running = false;
  #waiting: Waiting<T> | null = null;

  /** Runs `run` now, or after the running request when it is still the newest. */
  request(run: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiting?.reject(new Superseded());
      this.#waiting = { run, resolve, reject };
      if (!this.#running) this.#next();
    });
  }

  #next(): void {
    const w = this.#waiting;
    if (!w) return;
    this.#waiting = null;
    this.#running = true;
    let p: Promise<T>;
    try {
      p = w.run();
    } catch (e) {
      p = Promise.reject(e);
    }
    p.then(w.resolve, w.reject).finally(() => {
      this.#running = false;
      this.#next();
    });
  }
}
