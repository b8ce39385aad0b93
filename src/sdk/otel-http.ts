/**
 * An `OtelSink` that sends the run, when it finishes, to an OTLP/HTTP trace endpoint (such
 * as `memtrace serve`'s `/v1/traces`) as one OTLP/JSON request — the same bytes
 * `otelFileSink` writes to a file. Browser-safe: it uses `fetch`.
 */
import { OtelSink, type OtlpOptions } from './otel.ts';

/**
 * `url`: the full endpoint, e.g. `http://127.0.0.1:4318/v1/traces`. The sink's close fails
 * (the tracer's `finish` rejects) when the endpoint does not answer 200 or refuses spans.
 */
export function otlpHttpSink(url: string, options: OtlpOptions, send: typeof fetch = fetch): OtelSink {
  const chunks: Uint8Array[] = [];
  return new OtelSink(
    {
      write: (chunk) => {
        chunks.push(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk);
      },
      close: async () => {
        const body = new Blob(chunks as BlobPart[], { type: 'application/json' });
        const res = await send(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        const text = await res.text();
        if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${text.slice(0, 200)}`);
        const refused = (JSON.parse(text || '{}') as { partialSuccess?: { rejectedSpans?: string | number } })
          .partialSuccess?.rejectedSpans;
        if (Number(refused) > 0) throw new Error(`${url} refused ${refused} span(s): ${text.slice(0, 200)}`);
      },
    },
    options,
  );
}
