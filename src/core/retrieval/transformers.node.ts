/** Node side of the transformers.js embedder: a model folder on disk (used by the CLI and benchmarks). */
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { ModelLocation } from './transformers.ts';

/**
 * A model folder `<dir>/config.json`, `tokenizer.json`, `tokenizer_config.json`,
 * `onnx/model*.onnx` (transformers.js layout).
 */
export function nodeModelDir(dir: string): ModelLocation {
  const abs = resolve(dir);
  const name = basename(abs);
  return {
    name,
    // An absolute path is not a hub id, so transformers.js reads `<abs>/<file>` directly.
    model: abs,
    localModelPath: `${dirname(abs)}/`,
    runtime: 'node',
    async readText(path) {
      try {
        return await readFile(join(abs, path), 'utf8');
      } catch {
        return null;
      }
    },
    async fingerprint() {
      const parts: string[] = [];
      for (const f of ['onnx/model.onnx', 'onnx/model_quantized.onnx', 'onnx/model_fp16.onnx']) {
        try {
          const s = await stat(join(abs, f));
          parts.push(`${f}:${s.size}:${s.mtimeMs}`);
        } catch {
          // absent
        }
      }
      return parts.join('\n');
    },
  };
}
