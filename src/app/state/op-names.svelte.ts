/**
 * Names of ops the page shows by id (an attributed op far back on a long path, a label's op,
 * a confusion cell's ops): asked of the engine worker in one batch per trace
 * (`describeOps`), kept for the page's life. `setup…/use…` context pair.
 */
import { getContext, setContext } from 'svelte';
import { SvelteMap } from 'svelte/reactivity';
import type { OpSummary } from '../../../workers/api.ts';
import type { Services } from './services.ts';

const key = (traceId: string, opId: string) => `${traceId}\u0000${opId}`;

class OpNames {
  /** Known ops (null: the trace has no such op). */
  readonly #known = new SvelteMap<string, OpSummary | null>();
  #wanted = new Map<string, Set<string>>();
  #scheduled = false;

  constructor(private readonly services: Services) {}

  /** Remembers ops a view already has (a path, a search result), so they need no request. */
  add(traceId: string, ops: readonly OpSummary[]): void {
    for (const o of ops) if (!this.#known.has(key(traceId, o.id))) this.#known.set(key(traceId, o.id), o);
  }

  /** The op, once known (undefined while it is asked for; null: not in the trace). */
  get(traceId: string, opId: string): OpSummary | null | undefined {
    const k = key(traceId, opId);
    if (this.#known.has(k)) return this.#known.get(k);
    const ids = this.#wanted.get(traceId) ?? new Set<string>();
    this.#wanted.set(traceId, ids);
    ids.add(opId);
    if (!this.#scheduled) {
      this.#scheduled = true;
      queueMicrotask(() => void this.#ask());
    }
    return undefined;
  }

  async #ask(): Promise<void> {
    this.#scheduled = false;
    const wanted = this.#wanted;
    this.#wanted = new Map();
    for (const [traceId, set] of wanted) {
      // Ids a view added meanwhile (`add`) need no request.
      const ids = [...set].filter((id) => !this.#known.has(key(traceId, id)));
      if (ids.length === 0) continue;
      try {
        const ops = await this.services.analysis.describeOps(traceId, ids);
        ids.forEach((id, i) => {
          this.#known.set(key(traceId, id), ops[i]);
        });
      } catch {
        for (const id of ids) this.#known.set(key(traceId, id), null); // the trace is gone or unreadable
      }
    }
  }
}

const KEY = Symbol('op-names');
export function setupOpNames(services: Services): OpNames {
  return setContext(KEY, new OpNames(services));
}
export function useOpNames(): OpNames {
  return getContext<OpNames>(KEY);
}
