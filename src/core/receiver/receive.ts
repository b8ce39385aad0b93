/**
 * A request body → the line each trace's file gets, and what was refused: protobuf through
 * the fast path (`wire-json.ts`) when it takes the request as it is, else (JSON, a span to
 * refuse, a body to refuse) decoded and checked as a tree, split by trace and stringified.
 */
import { splitByTrace } from './group.ts';
import { decodeTraceRequest, type OtlpEncoding } from './request.ts';
import { type LinePart, wireLines } from './wire-json.ts';

/** A body received: each trace's line (OTLP/JSON and a newline) and description, or why it is refused. */
export type ReceivedRequest =
  | { ok: true; parts: LinePart[]; accepted: number; rejected: number; reasons: string[] }
  | { ok: false; message: string };

/** Decodes, checks and splits a request body (already decompressed). Never throws. */
export function receiveTraceRequest(body: Uint8Array, encoding: OtlpEncoding): ReceivedRequest {
  const fast = encoding === 'protobuf' ? wireLines(body) : null;
  if (fast) return { ok: true, ...fast, rejected: 0, reasons: [] };
  const d = decodeTraceRequest(body, encoding);
  if (!d.ok) return d;
  const parts = splitByTrace(d.request).map((p) => ({
    traceId: p.traceId,
    line: Buffer.from(`${JSON.stringify(p.request)}\n`),
    summary: p.summary,
  }));
  return { ok: true, parts, accepted: d.accepted, rejected: d.rejected, reasons: d.reasons };
}
