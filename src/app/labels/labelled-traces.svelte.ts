/**
 * Stored traces with cases labelled under a label choice (core/labels), for the views that
 * score against labels: which traces, how many cases, and the choices the stored labels offer.
 * Re-read when traces or labels change.
 */
import {
  caseKey,
  FILE_CHOICE,
  type LabelChoiceOption,
  labelChoices,
  labelsFor,
} from '../../core/labels/index.ts';
import { listLabels } from '../../db/labels.ts';
import type { LabelRow, TraceMeta } from '../../db/schema.ts';
import { useLibrary } from '../state/library.svelte.ts';
import { useServices } from '../state/services.ts';
import { useLabelBook } from './label-book.svelte.ts';

export class LabelledTraces {
  #labels = $state.raw<LabelRow[]>([]);
  #caseKeys = $state.raw<Set<string>>(new Set());
  #loaded = $state(false);
  readonly #library = useLibrary();

  constructor(private readonly choice: () => string) {
    const services = useServices();
    const book = useLabelBook();
    $effect(() => {
      void this.#library.version;
      void this.#library.labels; // any label stored, by this page or a worker
      void book.version;
      let live = true;
      void Promise.all([listLabels(services.db), services.db.cases.toCollection().primaryKeys()]).then(
        ([labels, keys]) => {
          if (!live) return;
          this.#caseKeys = new Set(keys.map(([graphId, queryId]) => caseKey({ graphId, queryId })));
          this.#labels = labels.filter((l) => this.#caseKeys.has(caseKey(l)));
          this.#loaded = true;
        },
      );
      return () => {
        live = false;
      };
    });
  }

  get loaded(): boolean {
    return this.#loaded;
  }
  /** Labelled cases per trace under the current choice. */
  get counts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const l of labelsFor(this.#labels, this.choice() || FILE_CHOICE).values())
      counts.set(l.graphId, (counts.get(l.graphId) ?? 0) + 1);
    return counts;
  }
  /** Traces with labelled cases, by file name (the order cases are evaluated and listed in). */
  get traces(): TraceMeta[] {
    const counts = this.counts;
    return this.#library.traces
      .filter((t) => (counts.get(t.id) ?? 0) > 0)
      .sort((a, b) => a.file.localeCompare(b.file) || a.id.localeCompare(b.id));
  }
  get cases(): number {
    let n = 0;
    for (const t of this.traces) n += this.counts.get(t.id) ?? 0;
    return n;
  }
  get choices(): LabelChoiceOption[] {
    return labelChoices(this.#labels);
  }
}
