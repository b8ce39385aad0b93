/** In-browser model state: GPU support, cached models, loading progress, the loaded engine. */
import {
  detectGpu,
  type GpuSupport,
  pickVariant,
  WEBLLM_MODELS,
  type WebLLMEngine,
  type WebLLMModel,
} from '../../core/llm/index.ts';
import { type LoadedEngine, WebLLMClient } from './webllm-client.ts';

interface LoadProgress {
  modelId: string;
  progress: number;
  text: string;
}

export class WebLLMState {
  #gpu = $state<GpuSupport | null>(null);
  #cached = $state<Record<string, boolean>>({});
  #progress = $state<LoadProgress | null>(null);
  #loaded = $state.raw<LoadedEngine | null>(null);
  #error = $state<string | null>(null);
  readonly models: readonly WebLLMModel[] = WEBLLM_MODELS;
  readonly #gpuApi: unknown;
  readonly #client = new WebLLMClient();

  /** `gpu` is `navigator.gpu` (undefined when the browser has no WebGPU). */
  constructor(gpu: unknown) {
    this.#gpuApi = gpu;
  }

  get gpu() {
    return this.#gpu;
  }
  get progress() {
    return this.#progress;
  }
  get loadedModelId(): string | null {
    return this.#loaded?.modelId ?? null;
  }
  get error() {
    return this.#error;
  }
  isCached(modelId: string): boolean {
    return !!this.#cached[modelId];
  }

  /** The engine for a WebLLM profile, when that model is the one loaded. */
  engineFor(modelId: string): WebLLMEngine | undefined {
    return this.#loaded?.modelId === modelId ? this.#loaded.engine : undefined;
  }

  variant(m: WebLLMModel) {
    return pickVariant(m, { shaderF16: this.#gpu?.shaderF16 ?? false });
  }

  async detect(): Promise<GpuSupport> {
    const g = await detectGpu(this.#gpuApi as Parameters<typeof detectGpu>[0]);
    this.#gpu = g;
    if (g.webgpu) await this.refreshCache();
    return g;
  }

  async refreshCache() {
    const out: Record<string, boolean> = {};
    for (const m of this.models) {
      const id = this.variant(m).modelId;
      out[id] = await this.#client.isCached(id);
    }
    this.#cached = out;
  }

  async load(m: WebLLMModel) {
    const { modelId } = this.variant(m);
    this.#error = null;
    await this.unload();
    this.#progress = { modelId, progress: 0, text: 'Starting…' };
    try {
      this.#loaded = await this.#client.load(modelId, {
        contextWindow: m.contextWindow,
        onProgress: (r) => {
          this.#progress = { modelId, progress: r.progress, text: r.text };
        },
      });
      this.#cached = { ...this.#cached, [modelId]: true };
    } catch (e) {
      this.#error = e instanceof Error ? e.message : String(e);
    } finally {
      this.#progress = null;
    }
  }

  async unload() {
    const l = this.#loaded;
    this.#loaded = null;
    await l?.unload();
  }

  async deleteCache(m: WebLLMModel) {
    const { modelId } = this.variant(m);
    if (this.#loaded?.modelId === modelId) await this.unload();
    await this.#client.deleteCached(modelId);
    this.#cached = { ...this.#cached, [modelId]: false };
  }
}
