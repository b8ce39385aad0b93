/**
 * An async value that follows its inputs, a view's newest-wins proxy: whenever what `load`
 * reads changes, it runs again with a fresh `AbortSignal` and the previous run's signal is
 * aborted (pass it to the engine call so the worker stops too); stale answers are dropped.
 * Create it while a component initialises (it owns an effect).
 */
export class Resource<T> {
  #value = $state.raw<T | undefined>(undefined);
  #error = $state<string | null>(null);
  #loading = $state(true);

  constructor(load: (signal: AbortSignal) => Promise<T>) {
    $effect(() => {
      const controller = new AbortController();
      this.#loading = true;
      load(controller.signal).then(
        (v) => {
          if (controller.signal.aborted) return;
          this.#value = v;
          this.#error = null;
          this.#loading = false;
        },
        (e: unknown) => {
          if (controller.signal.aborted) return;
          this.#error = e instanceof Error ? e.message : String(e);
          this.#loading = false;
        },
      );
      return () => controller.abort();
    });
  }

  get value(): T | undefined {
    return this.#value;
  }
  get error(): string | null {
    return this.#error;
  }
  get loading(): boolean {
    return this.#loading;
  }
}
