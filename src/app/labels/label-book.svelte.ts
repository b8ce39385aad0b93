/**
 * The person's side of labelling: their annotator name (kept in `settings`), saving, deleting
 * and undoing labels, and a version every view showing labels re-reads on. Labels themselves
 * live in storage (src/db/labels.ts); the engine worker, their one writer, writes them for it.
 */
import { getContext, setContext } from 'svelte';
import type { OpKind } from '../../core/labels/index.ts';
import type { LabelInput } from '../../db/labels.ts';
import { getSetting } from '../../db/repo.ts';
import type { LabelRow } from '../../db/schema.ts';
import type { Services } from '../state/services.ts';

const ANNOTATOR_KEY = 'annotator';

class LabelBook {
  #annotator = $state('');
  #version = $state(0);
  /** The last label deleted here, so the deletion can be undone. */
  #lastDeleted = $state.raw<LabelRow | null>(null);

  constructor(private readonly services: Services) {}

  /** The name labels made here are signed with ('' until set in Settings). */
  get annotator(): string {
    return this.#annotator;
  }
  /** Bumped on every change to labels. */
  get version(): number {
    return this.#version;
  }
  get lastDeleted(): LabelRow | null {
    return this.#lastDeleted;
  }

  async load(): Promise<void> {
    this.#annotator = (await getSetting<string>(this.services.db, ANNOTATOR_KEY)) ?? '';
  }

  async setAnnotator(name: string): Promise<void> {
    const clean = name.trim().slice(0, 80);
    await this.services.engine.setSetting(ANNOTATOR_KEY, clean);
    this.#annotator = clean;
  }

  /** Saves a label signed with the annotator name; the op's kind must be able to cause its type. */
  async save(input: Omit<LabelInput, 'annotator' | 'opKind'> & { opKind: OpKind }): Promise<LabelRow> {
    const row = await this.services.engine.saveLabel(
      $state.snapshot({ ...input, annotator: this.#annotator }),
    );
    this.changed();
    return row;
  }

  async adjudicate(input: {
    graphId: string;
    queryId: string;
    errorType: string;
    opId: string | null;
    reason: string;
    opKind?: OpKind;
  }): Promise<LabelRow> {
    const row = await this.services.engine.saveAdjudication(
      $state.snapshot({ ...input, annotator: this.#annotator }),
    );
    this.changed();
    return row;
  }

  async remove(row: LabelRow): Promise<void> {
    if (row.id === undefined) return;
    await this.services.engine.deleteLabel(row.id);
    this.#lastDeleted = row;
    this.changed();
  }

  async undo(): Promise<void> {
    const row = this.#lastDeleted;
    if (row?.id === undefined) return;
    await this.services.engine.restoreLabel(row.id);
    this.#lastDeleted = null;
    this.changed();
  }

  /** Tells the views that labels changed (after an import, an agent label, …). */
  changed(): void {
    this.#version++;
  }
}

const KEY = Symbol('label-book');
export function setupLabelBook(services: Services): LabelBook {
  const book = new LabelBook(services);
  void book.load();
  return setContext(KEY, book);
}
export function useLabelBook(): LabelBook {
  return getContext<LabelBook>(KEY);
}
