/**
 * OTLP/HTTP replies, in the encoding of the request: `ExportTraceServiceResponse` (empty on
 * full success, `partial_success` when spans were refused) and the `google.rpc.Status` body
 * of every failure.
 */
import { otlpTypes } from './proto.ts';
import type { OtlpEncoding } from './request.ts';

/** The `Content-Type` of a reply in this encoding. */
export function contentTypeOf(encoding: OtlpEncoding): string {
  return encoding === 'protobuf' ? 'application/x-protobuf' : 'application/json';
}

/** The success reply; `rejected` > 0 fills `partial_success` with the count and why. */
export function exportResponse(encoding: OtlpEncoding, rejected: number, errorMessage: string): Uint8Array {
  if (rejected === 0) return encoding === 'json' ? new TextEncoder().encode('{}') : new Uint8Array(0);
  if (encoding === 'json')
    return new TextEncoder().encode(
      JSON.stringify({ partialSuccess: { rejectedSpans: String(rejected), errorMessage } }),
    );
  const { response } = otlpTypes();
  return response
    .encode(response.fromObject({ partialSuccess: { rejectedSpans: rejected, errorMessage } }))
    .finish();
}

/** A failure body (`google.rpc.Status` with the message; the HTTP status says the rest). */
export function statusBody(encoding: OtlpEncoding, message: string): Uint8Array {
  if (encoding === 'json') return new TextEncoder().encode(JSON.stringify({ message }));
  const { status } = otlpTypes();
  return status.encode(status.fromObject({ message })).finish();
}
