/**
 * An OTLP/HTTP trace request body → the `ExportTraceServiceRequest` in OTLP/JSON (what the
 * Collector's file exporter writes and the importer reads), with the spans a receiver must
 * refuse taken out and counted. Binary protobuf is decoded by `wire.ts`; JSON is parsed
 * as is. Ids become lower-case hex in both, as OTLP/JSON says.
 */
import { joinPath, TOO_DEEP_MESSAGE, tooDeepAt } from '../trace/index.ts';
import { decodeWire } from './wire.ts';

/** The two OTLP/HTTP encodings. */
export type OtlpEncoding = 'protobuf' | 'json';

/** A span of OTLP/JSON: the fields a receiver reads, the rest carried as they came. */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name?: string;
  startTimeUnixNano?: string | number;
  endTimeUnixNano?: string | number;
  [field: string]: unknown;
}

/** The spans of one instrumentation scope. */
interface OtlpScopeSpans {
  scope?: unknown;
  spans: OtlpSpan[];
  [field: string]: unknown;
}

/** The spans of one resource (a service). */
export interface OtlpResourceSpans {
  resource?: { attributes?: unknown; [field: string]: unknown };
  scopeSpans: OtlpScopeSpans[];
  [field: string]: unknown;
}

/** `ExportTraceServiceRequest` in OTLP/JSON. */
export interface OtlpTraceRequest {
  resourceSpans: OtlpResourceSpans[];
}

/** A decoded body: the accepted spans, and how many were refused and why (the first few reasons). */
type DecodedRequest =
  | { ok: true; request: OtlpTraceRequest; accepted: number; rejected: number; reasons: string[] }
  | { ok: false; message: string };

/** How many refusal reasons a reply names (the count covers them all). */
const MAX_REASONS = 5;

/** The encoding a `Content-Type` header names, or null for any other type. */
export function encodingOf(contentType: string | undefined): OtlpEncoding | null {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/x-protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  return null;
}

/** Decodes a request body (already decompressed). Never throws: bad data is `{ok: false}` naming the place. */
export function decodeTraceRequest(body: Uint8Array, encoding: OtlpEncoding): DecodedRequest {
  if (encoding === 'protobuf') {
    try {
      const r = decodeWire(body);
      if (!r.ok) return { ok: false, message: tooDeepMessage(r.value, r.deepAt) };
      return checkRequest(r.value, 'hex');
    } catch (e) {
      return { ok: false, message: `not a protobuf ExportTraceServiceRequest: ${(e as Error).message}` };
    }
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    return { ok: false, message: 'the JSON body is not valid UTF-8' };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, message: `invalid JSON: ${(e as Error).message}` };
  }
  // The importers' nesting limit, checked on the whole request as each stored line will nest.
  const deepAt = tooDeepAt(value);
  if (deepAt) return { ok: false, message: tooDeepMessage(value, deepAt) };
  return checkRequest(value, 'json');
}

/** Path segments a message shows before cutting the rest of a deep path to `…`. */
const SHOWN_SEGMENTS = 12;

/**
 * Where a request nests too deep, for the reply: the path (cut short), and the span (id,
 * name) and attribute key it is in when the path goes through them.
 */
function tooDeepMessage(request: unknown, path: readonly (string | number)[]): string {
  const shown = joinPath('', path.slice(0, SHOWN_SEGMENTS)).replace(/^\./, '');
  const names: string[] = [];
  let node: unknown = request;
  for (let i = 0; i < path.length && typeof node === 'object' && node !== null; i++) {
    node = (node as Record<string | number, unknown>)[path[i]];
    if (typeof path[i] !== 'number' || !isObject(node)) continue;
    if (path[i - 1] === 'spans') {
      const name = typeof node.name === 'string' ? ` ${JSON.stringify(node.name.slice(0, 80))}` : '';
      names.push(`span ${describeId(node.spanId)}${name}`);
    } else if (path[i - 1] === 'attributes' && typeof node.key === 'string')
      names.push(`attribute ${JSON.stringify(node.key.slice(0, 80))}`);
  }
  const where = names.length ? ` (${names.join(', ')})` : '';
  return `${shown}${path.length > SHOWN_SEGMENTS ? '…' : ''}${where}: the value ${TOO_DEEP_MESSAGE}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A list field: absent (or null, as protobuf JSON allows) is empty; anything else but a list is bad data. */
function listAt(owner: Record<string, unknown>, names: string[], place: string): unknown[] | string {
  const name = names.find((n) => owner[n] !== undefined && owner[n] !== null);
  if (name === undefined) return [];
  const v = owner[name];
  return Array.isArray(v) ? v : `${place}.${name} is not a list`;
}

/**
 * Walks resourceSpans → scopeSpans → spans. The envelopes must have the OTLP shape (else the
 * whole request is bad data); a span without a valid trace id and span id is refused alone.
 * The older `instrumentationLibrarySpans` / `instrumentationLibrary` names are read as
 * `scopeSpans` / `scope`.
 */
function checkRequest(value: unknown, ids: IdEncoding): DecodedRequest {
  if (!isObject(value)) return { ok: false, message: 'the body is not an ExportTraceServiceRequest object' };
  const resources = listAt(value, ['resourceSpans'], 'request');
  if (typeof resources === 'string') return { ok: false, message: resources };
  const out: OtlpResourceSpans[] = [];
  const reasons: string[] = [];
  let accepted = 0;
  let rejected = 0;
  for (let i = 0; i < resources.length; i++) {
    const rs = resources[i];
    const rsPlace = `resourceSpans[${i}]`;
    if (!isObject(rs)) return { ok: false, message: `${rsPlace} is not an object` };
    const scopes = listAt(rs, ['scopeSpans', 'instrumentationLibrarySpans'], rsPlace);
    if (typeof scopes === 'string') return { ok: false, message: scopes };
    const { scopeSpans: _s, instrumentationLibrarySpans: _l, ...resourceFields } = rs;
    const scopeOut: OtlpScopeSpans[] = [];
    for (let j = 0; j < scopes.length; j++) {
      const ss = scopes[j];
      const ssPlace = `${rsPlace}.scopeSpans[${j}]`;
      if (!isObject(ss)) return { ok: false, message: `${ssPlace} is not an object` };
      const spans = listAt(ss, ['spans'], ssPlace);
      if (typeof spans === 'string') return { ok: false, message: spans };
      const { spans: _p, instrumentationLibrary, ...scopeFields } = ss;
      const kept: OtlpSpan[] = [];
      for (let k = 0; k < spans.length; k++) {
        const r = checkSpan(spans[k], ids);
        if (typeof r === 'string') {
          rejected++;
          if (reasons.length < MAX_REASONS) reasons.push(`${ssPlace}.spans[${k}]: ${r}`);
        } else kept.push(r);
      }
      accepted += kept.length;
      if (scopeFields.scope === undefined && instrumentationLibrary !== undefined)
        scopeFields.scope = instrumentationLibrary;
      scopeOut.push({ ...scopeFields, spans: kept });
    }
    out.push({ ...resourceFields, scopeSpans: scopeOut } as OtlpResourceSpans);
  }
  return { ok: true, request: { resourceSpans: out }, accepted, rejected, reasons };
}

/** How ids arrive: hex from the protobuf decoder; hex (OTLP/JSON), or base64 from some writers, in JSON. */
type IdEncoding = 'hex' | 'json';

/** The span with its ids as lower-case hex, or why it is refused. */
function checkSpan(span: unknown, ids: IdEncoding): OtlpSpan | string {
  if (!isObject(span)) return 'not an object';
  const traceId = idHex(span.traceId, 16, ids);
  if (!traceId) return `traceId ${describeId(span.traceId)} is not a valid 16-byte id`;
  const spanId = idHex(span.spanId, 8, ids);
  if (!spanId) return `spanId ${describeId(span.spanId)} is not a valid 8-byte id`;
  if (span.name !== undefined && typeof span.name !== 'string') return 'name is not a string';
  // The span is the decoder's own fresh object: set in place (a copy per span cost GC time).
  const out = span as OtlpSpan;
  out.traceId = traceId;
  out.spanId = spanId;
  const parent = span.parentSpanId;
  if (parent === undefined || parent === '') delete out.parentSpanId;
  else {
    const hex = idHex(parent, 8, ids);
    if (!hex) return `parentSpanId ${describeId(parent)} is not a valid 8-byte id`;
    out.parentSpanId = hex;
  }
  if (Array.isArray(span.links))
    out.links = span.links.map((l) =>
      isObject(l)
        ? {
            ...l,
            traceId: idHex(l.traceId, 16, ids) ?? l.traceId,
            spanId: idHex(l.spanId, 8, ids) ?? l.spanId,
          }
        : l,
    );
  return out;
}

const describeId = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v.slice(0, 40)) : String(v));

const HEX = /^[0-9a-fA-F]+$/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Base64 (standard or URL-safe) → bytes, or null when it is not base64. */
function base64Bytes(text: string): number[] | null {
  const clean = text.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const ch of clean) {
    const n = B64.indexOf(ch);
    if (n < 0) return null;
    acc = ((acc << 6) | n) & 0xffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
    }
  }
  return out;
}

/**
 * An id of `bytes` bytes as lower-case hex; null when missing, of another length, or all
 * zeros (invalid per the OTLP spec). JSON ids are hex, or base64 when they are not hex of
 * the right length (the plain protobuf JSON mapping).
 */
export function idHex(v: unknown, bytes: 8 | 16, from: IdEncoding = 'json'): string | null {
  if (typeof v !== 'string' || v === '') return null;
  let hex: string | null = null;
  if (v.length === bytes * 2 && HEX.test(v)) hex = v.toLowerCase();
  else if (from === 'json' && BASE64.test(v)) {
    const raw = base64Bytes(v);
    if (raw && raw.length === bytes) hex = raw.map((b) => b.toString(16).padStart(2, '0')).join('');
  }
  return hex && /[1-9a-f]/.test(hex) ? hex : null;
}
