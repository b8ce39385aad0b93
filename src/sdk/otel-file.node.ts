/** An `OtelSink` writing its OTLP/JSON file on disk when the run finishes. */
import { writeFile } from 'node:fs/promises';
import { OtelSink, type OtlpOptions } from './otel.ts';

export function otelFileSink(path: string, options: OtlpOptions): OtelSink {
  const chunks: Uint8Array[] = [];
  return new OtelSink(
    {
      write: (chunk) => {
        chunks.push(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk);
      },
      close: () => writeFile(path, chunks),
    },
    options,
  );
}
