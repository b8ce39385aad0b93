/**
 * Reading a stored or dropped trace file in the worker: streamed from the blob (its text and
 * its parsed document never held together, `parseTraceChunks`), or — when the streaming reader
 * gives up on a file it cannot read plainly — the whole text, so every message keeps its place.
 */
import {
  type ImportOptions,
  type ImportResult,
  parseTraceChunks,
  parseTraceText,
} from '../src/core/trace/index.ts';

/**
 * The blob's bytes, chunk by chunk; reading stops (the stream is cancelled) when the caller
 * stops or `signal` is aborted (checked before each chunk: a cancelled import ends mid-file).
 */
export async function* blobChunks(blob: Blob, signal?: AbortSignal): AsyncGenerator<Uint8Array> {
  const reader = blob.stream().getReader();
  let done = false;
  try {
    for (;;) {
      signal?.throwIfAborted();
      const next = await reader.read();
      if (next.done) {
        done = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!done) await reader.cancel().catch(() => {});
  }
}

/** The trace in a blob, streamed; null when it must be read whole (see `parseTraceChunks`). */
export function parseTraceBlob(
  blob: Blob,
  options: ImportOptions,
  signal?: AbortSignal,
): Promise<ImportResult | null> {
  return parseTraceChunks(blobChunks(blob, signal), options);
}

/** A stored trace (its original bytes, checked when imported): streamed, else read whole. */
export async function readStoredTrace(blob: Blob, file: string): Promise<ImportResult> {
  return (await parseTraceBlob(blob, { file })) ?? parseTraceText(await blob.text(), { file });
}
