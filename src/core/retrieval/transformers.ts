/**
 * The transformers.js (`@huggingface/transformers` 4.x) embedder: a feature-extraction
 * pipeline loaded from LOCAL files only unless the caller explicitly allows the hub.
 *
 * - Where the files come from is a `ModelLocation` (see below): an app-served URL
 *   prefix, a folder the user picked (served through transformers.js's `env.fetch`
 *   hook), or a Node folder (transformers.node.ts).
 * - dtype is pinned (default `fp32` → `onnx/model.onnx`; `q8` → `model_quantized.onnx`, …)
 *   so Node and the browser load the same file.
 * - Pooling and normalisation come from the model's sentence-transformers config
 *   (`modules.json`, `1_Pooling/config.json`: mean / cls / last-token; a `Normalize`
 *   module), else mean + L2-normalise; explicit options override both.
 * - Device: WebGPU when an adapter is available, else wasm (browser); onnxruntime-node CPU in Node.
 * - Batched, cancellable between batches (AbortSignal), with progress.
 */
import { sha256Hex } from '../hash/index.ts';
import type { GpuProbe } from '../llm/index.ts';
import type { Embedder, EmbedOptions } from './embedder.ts';

/** How token vectors become one text vector. */
export type Pooling = 'mean' | 'cls' | 'last_token';
/** Which ONNX weights to load (`fp32` → `model.onnx`, `q8` → `model_quantized.onnx`, …). */
export type Dtype = 'fp32' | 'fp16' | 'q8' | 'int8' | 'uint8' | 'q4' | 'bnb4' | 'q4f16';
/** Where the model runs: WebGPU or wasm in the browser, CPU in Node. */
export type Device = 'webgpu' | 'wasm' | 'cpu';
/** onnxruntime-web's glue and binary (asyncify build, the one transformers.js 4.3 uses), or a URL prefix. */
export type WasmPaths = string | { mjs: string; wasm: string };

/** Where a model's files are. `model` is what transformers.js resolves under `localModelPath`. */
export interface ModelLocation {
  /** Human name (folder name or hub id). */
  name: string;
  /** transformers.js model id or path. */
  model: string;
  /** transformers.js `env.localModelPath` (a URL prefix in the browser, a folder in Node). */
  localModelPath: string;
  /** Replaces transformers.js's `env.fetch` while loading (a picked folder; guarded app files). */
  fetch?: (url: string, init?: RequestInit) => Promise<Response>;
  /** One of the model's files as text (`config.json`, `modules.json`, …); null when absent. */
  readText(path: string): Promise<string | null>;
  /** Extra identity of the files (sizes/dates), folded into the embedder id. */
  fingerprint?(): Promise<string>;
  /** `node` for a folder on disk (transformers.node.ts): CPU device, no browser cache. */
  runtime?: 'node' | 'browser';
}

/** transformers.js's model-loading progress, as it reports it. */
export interface LoadProgress {
  status: string;
  file?: string;
  loaded?: number;
  total?: number;
  /** 0–100 for one file. */
  progress?: number;
}

/**
 * Options of `TransformersEmbedder.load`: where the files are, weights, device, pooling, batching, whether
 * the hub may be used, and progress.
 */
export interface TransformersEmbedderOptions {
  location: ModelLocation;
  dtype?: Dtype;
  /** Default: webgpu if available, else wasm (browser); cpu (Node). */
  device?: Device | 'auto';
  pooling?: Pooling;
  normalize?: boolean;
  batchSize?: number;
  /** The hub is used only when this is true (the user allowed it). */
  allowRemote?: boolean;
  /** Browser: where the app serves onnxruntime-web's .wasm/.mjs files (the default points at a CDN). */
  wasmPaths?: WasmPaths;
  /** Browser: `navigator.gpu`, for the default device (no probe: wasm). */
  gpu?: GpuProbe;
  onLoadProgress?: (p: LoadProgress) => void;
  signal?: AbortSignal;
}

/**
 * The pooling and normalisation a model is run with, where they came from, and its hidden size when known.
 */
export interface ResolvedEmbeddingConfig {
  pooling: Pooling;
  normalize: boolean;
  /** Where the pooling came from. */
  source: 'options' | 'sentence-transformers' | 'default';
  hiddenSize: number | null;
}

/** Pooling and normalisation from the sentence-transformers files of a model. */
export async function resolveEmbeddingConfig(
  location: Pick<ModelLocation, 'readText'>,
  overrides: { pooling?: Pooling; normalize?: boolean } = {},
): Promise<ResolvedEmbeddingConfig> {
  const json = async (p: string) => {
    const t = await location.readText(p);
    if (t === null) return null;
    try {
      return JSON.parse(t) as Record<string, unknown>;
    } catch {
      throw new Error(`${p} of the model is not JSON`);
    }
  };
  const config = await json('config.json');
  if (!config) throw new Error('config.json is missing from the model folder');
  const hiddenSize = typeof config.hidden_size === 'number' ? config.hidden_size : null;
  const modules = (await json('modules.json')) as unknown as { type?: string; path?: string }[] | null;
  let pooling: Pooling | null = null;
  let normalize: boolean | null = null;
  if (Array.isArray(modules)) {
    normalize = modules.some((m) => typeof m.type === 'string' && m.type.endsWith('.Normalize'));
    const pool = modules.find((m) => typeof m.type === 'string' && m.type.endsWith('.Pooling'));
    const pc = pool ? await json(`${pool.path ?? '1_Pooling'}/config.json`) : null;
    if (pc) {
      if (pc.pooling_mode_cls_token) pooling = 'cls';
      else if (pc.pooling_mode_lasttoken) pooling = 'last_token';
      else if (pc.pooling_mode_mean_tokens) pooling = 'mean';
      else throw new Error('unsupported pooling in 1_Pooling/config.json (only mean, cls, last token)');
    }
  }
  const source =
    overrides.pooling !== undefined ? 'options' : pooling !== null ? 'sentence-transformers' : 'default';
  return {
    pooling: overrides.pooling ?? pooling ?? 'mean',
    normalize: overrides.normalize ?? normalize ?? true,
    source,
    hiddenSize,
  };
}

async function pickDevice(
  wanted: Device | 'auto' | undefined,
  runtime: ModelLocation['runtime'],
  gpu: GpuProbe | undefined,
): Promise<Device> {
  if (wanted && wanted !== 'auto') return wanted;
  if (runtime === 'node') return 'cpu';
  try {
    if (gpu && (await gpu.requestAdapter())) return 'webgpu';
  } catch {
    // no adapter
  }
  return 'wasm';
}

type Extractor = ((
  texts: string[],
  options: { pooling: Pooling; normalize: boolean },
) => Promise<{ data: ArrayLike<number>; dims: number[] }>) & { dispose(): Promise<void> };

/**
 * A transformers.js feature-extraction model as an `Embedder`: loaded from local files unless allowed
 * otherwise, batched and cancellable; its id covers the model files and settings.
 */
export class TransformersEmbedder implements Embedder {
  readonly kind = 'transformers' as const;

  private constructor(
    readonly id: string,
    readonly label: string,
    readonly dims: number,
    readonly device: Device,
    readonly dtype: Dtype,
    readonly config: ResolvedEmbeddingConfig,
    private readonly extractor: Extractor,
    private readonly batchSize: number,
  ) {}

  static async load(options: TransformersEmbedderOptions): Promise<TransformersEmbedder> {
    const { location } = options;
    const dtype = options.dtype ?? 'fp32';
    const config = await resolveEmbeddingConfig(location, options);
    const device = await pickDevice(options.device, location.runtime, options.gpu);
    options.signal?.throwIfAborted();
    const tf = await import('@huggingface/transformers');
    const env = tf.env;
    env.allowLocalModels = true;
    env.allowRemoteModels = options.allowRemote === true;
    env.localModelPath = location.localModelPath;
    // Local files need no browser cache, and a cached error page would stick ("Unexpected token '<'").
    env.useBrowserCache = options.allowRemote === true && location.runtime !== 'node';
    const savedFetch = env.fetch;
    if (location.fetch) env.fetch = location.fetch as typeof env.fetch;
    const wasm = env.backends.onnx?.wasm as { wasmPaths?: unknown } | undefined;
    if (options.wasmPaths && wasm) wasm.wasmPaths = options.wasmPaths;
    let extractor: Extractor;
    try {
      extractor = (await tf.pipeline('feature-extraction', location.model, {
        dtype,
        device,
        local_files_only: options.allowRemote !== true,
        progress_callback: (p: unknown) => options.onLoadProgress?.(p as LoadProgress),
      })) as unknown as Extractor;
    } finally {
      env.fetch = savedFetch;
    }
    const configFiles = await Promise.all(
      ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'modules.json'].map(
        async (f) => `${f}\n${(await location.readText(f)) ?? ''}`,
      ),
    );
    const extra = location.fingerprint ? await location.fingerprint() : '';
    const fp = sha256Hex(configFiles.join('\n') + extra).slice(0, 16);
    // Probe once for the width (config.hidden_size may be absent or differ from the output).
    const probe = await extractor([''], { pooling: config.pooling, normalize: config.normalize });
    const dims = probe.dims[probe.dims.length - 1];
    const norm = config.normalize ? 'norm' : 'raw';
    const id = `transformers:${location.name}:${dtype}:${config.pooling}:${norm}:${fp}`;
    const label = `${location.name} (${dtype}, ${config.pooling} pooling${config.normalize ? ', normalised' : ''}, ${device})`;
    return new TransformersEmbedder(
      id,
      label,
      dims,
      device,
      dtype,
      config,
      extractor,
      Math.max(1, options.batchSize ?? 16),
    );
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array> {
    const { dims, batchSize } = this;
    const out = new Float32Array(texts.length * dims);
    for (let i = 0; i < texts.length; i += batchSize) {
      options.signal?.throwIfAborted();
      const batch = texts.slice(i, i + batchSize) as string[];
      const t = await this.extractor(batch, {
        pooling: this.config.pooling,
        normalize: this.config.normalize,
      });
      if (t.dims[t.dims.length - 1] !== dims || t.data.length !== batch.length * dims)
        throw new Error(`model returned shape [${t.dims.join(', ')}], expected [${batch.length}, ${dims}]`);
      out.set(t.data, i * dims);
      options.onProgress?.({ done: Math.min(texts.length, i + batchSize), total: texts.length });
    }
    return out;
  }

  async dispose(): Promise<void> {
    await this.extractor.dispose();
  }
}

const SERVED_PREFIX = '/__memtrace_served_model__';

/**
 * Files served by the app (or any URL prefix): `${baseUrl}/${name}/…`. transformers.js
 * only looks for local files under a path (an http(s) `localModelPath` counts as
 * remote), so it is given a placeholder path that this location's fetch maps onto
 * `baseUrl`; an HTML answer for a non-HTML file (Vite's fallback) counts as 404.
 */
export function servedModel(baseUrl: string, name: string): ModelLocation {
  const base = baseUrl.replace(/\/$/, '');
  const guarded = async (url: string, init?: RequestInit) => {
    const r = await fetch(url, init);
    const type = r.headers.get('content-type') ?? '';
    if (r.ok && type.includes('text/html') && !/\.html?$/.test(url))
      return new Response(null, { status: 404, statusText: 'Not Found' });
    return r;
  };
  return {
    name,
    model: name,
    localModelPath: `${SERVED_PREFIX}/`,
    fetch(url, init) {
      const at = url.indexOf(`${SERVED_PREFIX}/`);
      return guarded(at >= 0 ? `${base}/${url.slice(at + SERVED_PREFIX.length + 1)}` : url, init);
    },
    async readText(path) {
      const r = await guarded(`${base}/${name}/${path}`);
      return r.ok ? r.text() : null;
    },
  };
}

const PICKED_PREFIX = '/__memtrace_picked_model__';

/**
 * A folder the user picked (`<input webkitdirectory>` / File System Access): its files
 * by path relative to the model folder (`config.json`, `onnx/model.onnx`, …).
 */
export function pickedFolderModel(name: string, files: Map<string, Blob>): ModelLocation {
  const safe = name.replace(/[^\w.-]/g, '_') || 'model';
  const prefix = `${PICKED_PREFIX}/${safe}/`;
  return {
    name,
    model: safe,
    localModelPath: `${PICKED_PREFIX}/`,
    async fetch(url) {
      const at = url.indexOf(prefix);
      const file = at >= 0 ? files.get(decodeURIComponent(url.slice(at + prefix.length))) : undefined;
      if (!file) return new Response(null, { status: 404, statusText: 'Not Found' });
      return new Response(file, {
        status: 200,
        headers: { 'content-length': String(file.size), 'content-type': 'application/octet-stream' },
      });
    },
    async readText(path) {
      const f = files.get(path);
      return f ? f.text() : null;
    },
    async fingerprint() {
      return [...files.entries()]
        .map(([p, f]) => `${p}:${f.size}:${(f as File).lastModified ?? ''}`)
        .sort()
        .join('\n');
    },
  };
}
