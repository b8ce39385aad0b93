/**
 * "Run a system": the picked data set file, the choices, and one run at a time (offline, or
 * LLM mode with the configured provider) in the systems worker (progress, cancel, result). Kept at app level so a run survives
 * moving between pages; the new trace joins the library when it is stored.
 */
import * as Comlink from 'comlink';
import { getContext, setContext } from 'svelte';
import {
  type DatasetInfo,
  type DatasetName,
  emptyRunResult,
  type SystemName,
  type SystemRunProgress,
  type SystemRunResult,
} from '../../../workers/api.ts';
import { modelInfo, modelPort } from '../attribution/model-port.ts';
import type { LlmSettings } from '../llm/settings.svelte.ts';
import type { Library } from './library.svelte.ts';
import type { Services } from './services.ts';

export const SYSTEM_CHOICES: { name: SystemName; label: string; about: string }[] = [
  {
    name: 'mem0',
    label: 'Mem0 (classic)',
    about: 'fact extraction → per-fact search → ADD / UPDATE / DELETE / NONE → search → answer',
  },
  {
    name: 'rag',
    label: 'Naive RAG',
    about: '1,200-token chunks, BM25 top-10 retrieval → answer',
  },
  {
    name: 'long-context',
    label: 'Long-context',
    about: 'the whole conversation in a 32k-token window with eviction → answer',
  },
  {
    name: 'evermemos',
    label: 'EverMemOS (minimal)',
    about: 'boundary detection → episodes and atomic facts → hybrid index → two-round retrieval → answer',
  },
];

export const DATASET_CHOICES: { name: DatasetName | 'auto'; label: string }[] = [
  { name: 'auto', label: 'Detect from the file' },
  { name: 'locomo', label: 'LoCoMo (canonical or v2 layout)' },
  { name: 'realmem', label: 'RealMem' },
  { name: 'longmemeval', label: 'LongMemEval' },
];

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

class SystemRun {
  #file = $state.raw<File | null>(null);
  #info = $state.raw<DatasetInfo | null>(null);
  #reading = $state(false);
  #readError = $state<string | null>(null);
  #running = $state(false);
  #cancelling = $state(false);
  /** Aborts the running run (its signal went to the worker with it). */
  #abort: AbortController | null = null;
  #progress = $state.raw<SystemRunProgress | null>(null);
  #result = $state.raw<SystemRunResult | null>(null);
  /** Which loader reads the file. */
  dataset = $state<DatasetName | 'auto'>('auto');
  conversationId = $state('');
  system = $state<SystemName>('mem0');
  /** Empty: every session. */
  maxSessions = $state<number | null>(null);
  /** Offline (deterministic components) or LLM mode with the active Settings profile. */
  mode = $state<'offline' | 'llm'>('offline');

  constructor(
    private readonly services: Services,
    private readonly library: Library,
  ) {}

  get file(): File | null {
    return this.#file;
  }
  get info(): DatasetInfo | null {
    return this.#info;
  }
  get reading(): boolean {
    return this.#reading;
  }
  get readError(): string | null {
    return this.#readError;
  }
  get running(): boolean {
    return this.#running;
  }
  get cancelling(): boolean {
    return this.#cancelling;
  }
  get progress(): SystemRunProgress | null {
    return this.#progress;
  }
  get result(): SystemRunResult | null {
    return this.#result;
  }
  get conversation() {
    return this.#info?.conversations.find((c) => c.id === this.conversationId) ?? null;
  }
  get canStart(): boolean {
    return !this.#running && !this.#reading && !!this.#file && !!this.conversation && this.sessionLimitValid;
  }
  get sessionLimitValid(): boolean {
    const m = this.maxSessions;
    return m === null || (Number.isInteger(m) && m > 0);
  }

  /** Reads the picked file in the worker: data set, layout and conversations. */
  async pick(file: File | null): Promise<void> {
    if (this.#running) return;
    this.#file = file;
    this.#result = null;
    await this.read();
  }

  /** (Re)reads the current file with the current data set choice. */
  async read(): Promise<void> {
    const file = this.#file;
    this.#info = null;
    this.#readError = null;
    if (!file) return;
    this.#reading = true;
    try {
      const info = await this.services.systems.inspect({
        blob: file,
        name: file.name,
        dataset: this.dataset,
      });
      if (this.#file !== file) return;
      this.#info = info;
      if (!info.conversations.some((c) => c.id === this.conversationId))
        this.conversationId = info.conversations[0]?.id ?? '';
    } catch (e) {
      if (this.#file === file) this.#readError = message(e);
    } finally {
      if (this.#file === file) this.#reading = false;
    }
  }

  /** Starts a run; LLM mode calls the active profile of `settings` (the model stays in this page). */
  async start(settings?: LlmSettings): Promise<void> {
    const file = this.#file;
    if (!this.canStart || !file) return;
    const model =
      this.mode === 'llm' && settings?.active ? settings.chatModel(undefined, 'run a system') : undefined;
    this.#running = true;
    this.#cancelling = false;
    this.#progress = null;
    this.#result = null;
    const abort = new AbortController();
    this.#abort = abort;
    try {
      this.#result = await this.services.systems.run(
        {
          source: { blob: file, name: file.name, dataset: this.dataset },
          conversationId: this.conversationId,
          system: this.system,
          maxSessions: this.maxSessions ?? undefined,
          mode: this.mode,
        },
        Comlink.proxy((p: SystemRunProgress) => {
          this.#progress = p;
        }),
        model ? modelInfo(model) : undefined,
        model ? Comlink.proxy(modelPort(model)) : undefined,
        abort.signal,
      );
    } catch (e) {
      this.#result = emptyRunResult({
        system: this.system,
        dataset: this.#info?.dataset ?? 'locomo',
        conversationId: this.conversationId,
        message: `The run stopped unexpectedly: ${message(e)}`,
      });
    } finally {
      this.#running = false;
      this.#cancelling = false;
      this.#abort = null;
      if (this.#result?.traceId) await this.library.refresh();
    }
  }

  /** Stops the run before its next session or question; nothing is stored. */
  cancel(): void {
    if (!this.#running || !this.#abort) return;
    this.#cancelling = true;
    this.#abort.abort();
  }
}

const KEY = Symbol('system-run');
export function setupSystemRun(services: Services, library: Library): SystemRun {
  return setContext(KEY, new SystemRun(services, library));
}
export function useSystemRun(): SystemRun {
  return getContext<SystemRun>(KEY);
}
