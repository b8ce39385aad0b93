/**
 * The annotation queue: failed cases of chosen traces to label one at a time in the case
 * workspace — those the annotator has not labelled yet, those nobody has, or those annotators
 * disagree on — with next / previous / skip, and blind mode (engines' answers and other
 * people's labels hidden so they do not anchor the person). Kept in `settings`, so a reload
 * goes on where it was.
 */
import { getContext, setContext } from 'svelte';
import { agreement } from '../../core/agreement/index.ts';
import { caseKey } from '../../core/labels/index.ts';
import { listLabels } from '../../db/labels.ts';
import { getSetting, listCaseRows } from '../../db/repo.ts';
import type { Services } from '../state/services.ts';

export type QueueMode = 'mine' | 'unlabelled' | 'disputed';

export const QUEUE_MODES: { id: QueueMode; text: string }[] = [
  { id: 'mine', text: 'not yet labelled by me' },
  { id: 'unlabelled', text: 'without any label' },
  { id: 'disputed', text: 'disputed (annotators disagree)' },
];

interface QueueItem {
  traceId: string;
  queryId: string;
}

interface QueueData {
  items: QueueItem[];
  index: number;
  blind: boolean;
  mode: QueueMode;
  /** Items labelled from the queue (caseKey), to show progress. */
  labelled: string[];
}

const KEY = 'annotation-queue';

class AnnotationQueue {
  #data = $state.raw<QueueData | null>(null);

  constructor(private readonly services: Services) {}

  get active(): boolean {
    return !!this.#data && this.#data.items.length > 0;
  }
  get items(): QueueItem[] {
    return this.#data?.items ?? [];
  }
  get index(): number {
    return this.#data?.index ?? 0;
  }
  get current(): QueueItem | null {
    return this.#data?.items[this.#data.index] ?? null;
  }
  get blind(): boolean {
    return this.#data?.blind ?? false;
  }
  get mode(): QueueMode | null {
    return this.#data?.mode ?? null;
  }
  get labelledCount(): number {
    return this.#data?.labelled.length ?? 0;
  }
  /** Whether the case is the queue's current item (the workspace then shows the queue's form). */
  isCurrent(traceId: string, queryId: string): boolean {
    const c = this.current;
    return !!c && c.traceId === traceId && c.queryId === queryId;
  }
  isLabelled(item: QueueItem): boolean {
    return this.#data?.labelled.includes(caseKey({ graphId: item.traceId, queryId: item.queryId })) ?? false;
  }

  async load(): Promise<void> {
    const d = await getSetting<QueueData>(this.services.db, KEY);
    if (d && Array.isArray(d.items)) this.#data = d;
  }

  /** Builds the queue from the failed cases of these traces. Returns how many cases it holds. */
  async start(traceIds: string[], mode: QueueMode, blind: boolean, annotator: string): Promise<number> {
    const wanted = new Set(traceIds);
    const cases = (await listCaseRows(this.services.db)).filter((c) => wanted.has(c.traceId) && c.failed);
    const labels = await listLabels(this.services.db, traceIds);
    let keep: (k: string) => boolean;
    if (mode === 'mine') {
      const me = annotator.trim();
      const mine = new Set(labels.filter((l) => l.origin === 'workbench' && l.annotator === me).map(caseKey));
      keep = (k) => !mine.has(k);
    } else if (mode === 'unlabelled') {
      const any = new Set(labels.map(caseKey));
      keep = (k) => !any.has(k);
    } else {
      const open = new Set(
        agreement(labels)
          .disputed.filter((d) => !d.adjudicated)
          .map((d) => caseKey({ graphId: d.graph_id, queryId: d.query_id })),
      );
      keep = (k) => open.has(k);
    }
    const items = cases
      .filter((c) => keep(caseKey({ graphId: c.traceId, queryId: c.queryId })))
      .map((c) => ({ traceId: c.traceId, queryId: c.queryId }));
    await this.#set({ items, index: 0, blind, mode, labelled: [] });
    return items.length;
  }

  async go(index: number): Promise<void> {
    if (!this.#data) return;
    const i = Math.max(0, Math.min(this.#data.items.length - 1, index));
    await this.#set({ ...this.#data, index: i });
  }
  next(): Promise<void> {
    return this.go(this.index + 1);
  }
  previous(): Promise<void> {
    return this.go(this.index - 1);
  }
  /** Puts the current case at the end of the queue and moves on. */
  async skip(): Promise<void> {
    const d = this.#data;
    if (!d || d.items.length < 2) return;
    const items = [...d.items];
    const [item] = items.splice(d.index, 1);
    items.push(item);
    await this.#set({ ...d, items, index: Math.min(d.index, items.length - 1) });
  }
  /** Notes the current case as labelled from the queue and moves on. */
  async labelled(): Promise<void> {
    const d = this.#data;
    const c = this.current;
    if (!d || !c) return;
    const k = caseKey({ graphId: c.traceId, queryId: c.queryId });
    await this.#set({
      ...d,
      labelled: d.labelled.includes(k) ? d.labelled : [...d.labelled, k],
      index: Math.min(d.index + 1, d.items.length - 1),
    });
  }
  async setBlind(blind: boolean): Promise<void> {
    if (this.#data) await this.#set({ ...this.#data, blind });
  }
  async stop(): Promise<void> {
    this.#data = null;
    await this.services.engine.setSetting(KEY, null);
  }

  async #set(d: QueueData): Promise<void> {
    this.#data = d;
    // A plain copy crosses to the engine worker (state proxies cannot be cloned).
    await this.services.engine.setSetting(KEY, $state.snapshot(d));
  }
}

const CONTEXT = Symbol('annotation-queue');
export function setupQueue(services: Services): AnnotationQueue {
  const q = new AnnotationQueue(services);
  void q.load();
  return setContext(CONTEXT, q);
}
export function useQueue(): AnnotationQueue {
  return getContext<AnnotationQueue>(CONTEXT);
}
