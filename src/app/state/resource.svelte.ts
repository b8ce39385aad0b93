/**
 * An async value that follows its inputs: whenever what `load` reads changes, it
 * runs again; the newest request wins and stale answers are dropped.
 * Create it while a component initialises (it owns an effect).
 */
export class Resource<T> {
  #value = $state.raw<T | undefined>(undefined);
  #error = $state<string | null>(null);
  #loading = $state(true);

  constructor(load: () => Promise<T>) {
    $effect(() => {
      let live = true;
      this.#loading = true;
      load().then(
        (v) => {
          if (!live) return;
          this.#value = v;
          this.#error = null;
          this.#loading = false;
        },
        (e: unknown) => {
          if (!live) return;
          this.#error = e instanceof Error ? e.message : String(e);
          this.#loading = false;
        },
      );
      return () => {
        live = false;
      };
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
