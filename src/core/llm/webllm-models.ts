/**
 * WebLLM in the browser: the curated models fit for agent work, WebGPU / `shader-f16`
 * detection, and the q4f16 → q4f32 fallback. Pure data and decisions; the engine runs in
 * workers/webllm.worker.ts and is driven from src/app/llm/webllm-client.ts.
 */

/**
 * A curated in-browser model: our key, its f16 and f32 prebuilt ids, download and GPU memory sizes, the
 * context window we load, and tool support.
 */
export interface WebLLMModel {
  /** Our short name, e.g. `qwen3-4b`. */
  key: string;
  label: string;
  /** Prebuilt WebLLM ids (`@mlc-ai/web-llm` 0.2.86 `prebuiltAppConfig`). */
  f16Id: string;
  f32Id: string;
  /** Approximate one-time download (weights) in MB, f16 / f32 variants. */
  downloadMB: { f16: number; f32: number };
  /** GPU memory WebLLM lists for a 4k context, f16 / f32. */
  vramMB: { f16: number; f32: number };
  /** The context window we load the model with (a `context_window_size` chat option). */
  contextWindow: number;
  /** Native tool calls in WebLLM (Hermes models only; not with a system message or JSON mode). */
  nativeTools: boolean;
  note: string;
}

/**
 * The curated in-browser models, best first, with ids, download and GPU memory sizes, context window and
 * tool support.
 */
export const WEBLLM_MODELS: readonly WebLLMModel[] = [
  {
    key: 'qwen3-8b',
    label: 'Qwen3 8B',
    f16Id: 'Qwen3-8B-q4f16_1-MLC',
    f32Id: 'Qwen3-8B-q4f32_1-MLC',
    downloadMB: { f16: 4600, f32: 5400 },
    vramMB: { f16: 5696, f32: 6853 },
    contextWindow: 8192,
    nativeTools: false,
    note: 'Best in-browser choice for attribution agents; needs a discrete or recent integrated GPU.',
  },
  {
    key: 'qwen3-4b',
    label: 'Qwen3 4B',
    f16Id: 'Qwen3-4B-q4f16_1-MLC',
    f32Id: 'Qwen3-4B-q4f32_1-MLC',
    downloadMB: { f16: 2300, f32: 2800 },
    vramMB: { f16: 3432, f32: 4328 },
    contextWindow: 8192,
    nativeTools: false,
    note: 'Good balance of quality and memory; follows the JSON action protocol well.',
  },
  {
    key: 'llama-3.1-8b',
    label: 'Llama 3.1 8B Instruct',
    f16Id: 'Llama-3.1-8B-Instruct-q4f16_1-MLC',
    f32Id: 'Llama-3.1-8B-Instruct-q4f32_1-MLC',
    downloadMB: { f16: 4500, f32: 5300 },
    vramMB: { f16: 5001, f32: 6101 },
    contextWindow: 8192,
    nativeTools: false,
    note: 'Solid general instruction follower.',
  },
  {
    key: 'hermes-3-llama-3.1-8b',
    label: 'Hermes 3 (Llama 3.1 8B)',
    f16Id: 'Hermes-3-Llama-3.1-8B-q4f16_1-MLC',
    f32Id: 'Hermes-3-Llama-3.1-8B-q4f32_1-MLC',
    downloadMB: { f16: 4500, f32: 5300 },
    vramMB: { f16: 4876, f32: 5779 },
    contextWindow: 4096,
    nativeTools: true,
    note: 'The one family with native tool calls in WebLLM.',
  },
  {
    key: 'qwen2.5-7b',
    label: 'Qwen2.5 7B Instruct',
    f16Id: 'Qwen2.5-7B-Instruct-q4f16_1-MLC',
    f32Id: 'Qwen2.5-7B-Instruct-q4f32_1-MLC',
    downloadMB: { f16: 4300, f32: 5100 },
    vramMB: { f16: 5107, f32: 5901 },
    contextWindow: 8192,
    nativeTools: false,
    note: 'Strong at JSON; no thinking mode.',
  },
  {
    key: 'qwen3-1.7b',
    label: 'Qwen3 1.7B (small)',
    f16Id: 'Qwen3-1.7B-q4f16_1-MLC',
    f32Id: 'Qwen3-1.7B-q4f32_1-MLC',
    downloadMB: { f16: 1000, f32: 1300 },
    vramMB: { f16: 2037, f32: 2635 },
    contextWindow: 4096,
    nativeTools: false,
    note: 'For weak GPUs and quick demos; attribution quality is low.',
  },
];

/** What the browser offers. `gpu` is `navigator.gpu` (injected: core has no DOM). */
export interface GpuSupport {
  webgpu: boolean;
  shaderF16: boolean;
  adapter?: string;
  /** A sentence for the person, set whenever something is missing. */
  message?: string;
}

/**
 * The browser's `navigator.gpu` as the project probes it: an adapter (or null), its features and what it
 * says it is. Injected, since core has no DOM.
 */
export interface GpuProbe {
  requestAdapter(options?: { powerPreference?: 'high-performance' | 'low-power' }): Promise<{
    features: { has(name: string): boolean };
    info?: { vendor?: string; architecture?: string; description?: string };
  } | null>;
}

/**
 * What WebGPU offers on this machine (pass `navigator.gpu`): whether a GPU adapter is there, whether it
 * has `shader-f16`, and a sentence for the person when something is missing. Never throws.
 */
export async function detectGpu(gpu: GpuProbe | undefined | null): Promise<GpuSupport> {
  if (!gpu)
    return {
      webgpu: false,
      shaderF16: false,
      message:
        'This browser has no WebGPU, so in-browser models cannot run. Use a recent Chrome or Edge (or Safari 26+/Firefox 141+ with WebGPU on), or use an API provider or a local server instead.',
    };
  let adapter: Awaited<ReturnType<GpuProbe['requestAdapter']>> = null;
  try {
    adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch {
    adapter = null;
  }
  if (!adapter)
    return {
      webgpu: false,
      shaderF16: false,
      message:
        'WebGPU is present but no GPU adapter is available (blocked GPU, remote desktop, or a driver problem). Use an API provider or a local server instead.',
    };
  const shaderF16 = adapter.features.has('shader-f16');
  const info = adapter.info;
  const name = [info?.vendor, info?.architecture, info?.description].filter(Boolean).join(' ') || undefined;
  return {
    webgpu: true,
    shaderF16,
    adapter: name,
    message: shaderF16
      ? undefined
      : 'This GPU lacks the WebGPU "shader-f16" feature: the q4f32 variants are used instead (somewhat larger and slower).',
  };
}

/** The variant to load: q4f16 when `shader-f16` is there, else the q4f32 fallback. */
export function pickVariant(m: WebLLMModel, support: Pick<GpuSupport, 'shaderF16'>) {
  const f16 = support.shaderF16;
  return {
    modelId: f16 ? m.f16Id : m.f32Id,
    downloadMB: f16 ? m.downloadMB.f16 : m.downloadMB.f32,
    vramMB: f16 ? m.vramMB.f16 : m.vramMB.f32,
    fallback: !f16,
  };
}

/** A curated model by our key or by either of its prebuilt ids. */
export function findWebLLMModel(keyOrId: string): WebLLMModel | undefined {
  return WEBLLM_MODELS.find((m) => m.key === keyOrId || m.f16Id === keyOrId || m.f32Id === keyOrId);
}

/** A size in MB for people: `850 MB`, `4.6 GB` (decimal). */
export function formatMB(mb: number): string {
  return mb >= 1000 ? `${(mb / 1000).toFixed(1)} GB` : `${mb} MB`;
}
