/**
 * The small encodings OTLP/JSON writers disagree on: attribute values (`AnyValue`),
 * trace and span ids (hex or base64) and nanosecond times (a number, a string of digits,
 * Long's `{low, high}`, or an ISO date in Phoenix and Langfuse exports).
 */

import { hash16 } from '../../hash/index.ts';
import type { IssueCollector } from '../issues.ts';
import { tooDeepAt } from '../nesting.ts';

/** A decoded attribute value: what the writer meant, as plain JSON-like data. */
export type AttrValue = string | number | boolean | null | AttrValue[] | { [key: string]: AttrValue };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Decodes an OTLP `AnyValue` (`{stringValue}`, `{intValue}`, `{arrayValue: {values}}`,
 * `{kvlistValue: {values: [{key, value}]}}`, …). Values that are already plain (some
 * exporters write them so) pass through; an empty AnyValue is null.
 */
function decodeAnyValue(v: unknown): AttrValue {
  if (!isObject(v)) return (v ?? null) as AttrValue;
  if ('stringValue' in v) return String(v.stringValue ?? '');
  if ('boolValue' in v) return v.boolValue === true || v.boolValue === 'true';
  if ('intValue' in v) return toNumber(v.intValue);
  if ('doubleValue' in v) return toNumber(v.doubleValue);
  if ('arrayValue' in v) {
    const values = isObject(v.arrayValue) ? v.arrayValue.values : undefined;
    return Array.isArray(values) ? values.map(decodeAnyValue) : [];
  }
  if ('kvlistValue' in v) {
    const values = isObject(v.kvlistValue) ? v.kvlistValue.values : undefined;
    return Array.isArray(values) ? decodeKeyValues(values) : {};
  }
  if ('bytesValue' in v) return String(v.bytesValue ?? '');
  return null;
}

function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (isObject(v) && 'low' in v) {
    const n = longToBigInt(v);
    // Long says whether the 64 bits are signed: {low: -1, high: -1, unsigned: false} is -1.
    return Number(v.unsigned === true ? n : BigInt.asIntN(64, n));
  }
  const n = Number(v);
  return Number.isFinite(n) ? n : 0;
}

/**
 * `[{key, value}]` → an object with a null prototype, so keys like `__proto__` are plain
 * keys. Later duplicates win, as in the SDKs.
 */
export function decodeKeyValues(list: unknown): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = Object.create(null);
  if (!Array.isArray(list)) return out;
  for (const kv of list) {
    if (!isObject(kv) || typeof kv.key !== 'string') continue;
    out[kv.key] = decodeAnyValue(kv.value);
  }
  return out;
}

const HEX = /^[0-9a-f]+$/i;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function base64ToHex(text: string): string | null {
  const clean = text.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
  let bits = 0;
  let acc = 0;
  let hex = '';
  for (const ch of clean) {
    const n = B64.indexOf(ch);
    if (n < 0) return null;
    acc = (acc << 6) | n;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      hex += ((acc >> bits) & 0xff).toString(16).padStart(2, '0');
    }
  }
  return hex;
}

/**
 * The bytes of an id a server wrote after decoding protobuf: Node's Buffer JSON (`{type:
 * "Buffer", data: [...]}`), a plain list of bytes, or a Uint8Array as JSON.stringify writes it
 * (`{"0": 234, "1": 103, …}`). Null for anything else.
 */
function idBytes(v: unknown): unknown[] | null {
  if (Array.isArray(v)) return v;
  if (!isObject(v)) return null;
  if (v.type === 'Buffer' && Array.isArray(v.data)) return v.data;
  const keys = Object.keys(v);
  if (keys.length && keys.every((k, i) => k === String(i))) return keys.map((k) => v[k]);
  return null;
}

function bytesToHex(bytes: unknown[]): string | null {
  let hex = '';
  for (const b of bytes) {
    if (typeof b !== 'number' || !Number.isInteger(b) || b < 0 || b > 255) return null;
    hex += b.toString(16).padStart(2, '0');
  }
  return hex || null;
}

/**
 * A trace id (16 bytes) or span id (8 bytes) as lower-case hex. OTLP/JSON says hex; the
 * protobuf JSON mapping (and some exporters) write base64, servers that decoded protobuf write
 * the bytes (`idBytes`). Returns null when it is none of these; an id of the wrong length in
 * hex is kept (lower-cased) rather than refused.
 */
export function normalizeId(v: unknown, bytes: 8 | 16): string | null {
  const raw = idBytes(v);
  if (raw) return bytesToHex(raw);
  if (typeof v !== 'string' || v === '') return null;
  const t = v.trim();
  if (t.length === bytes * 2 && HEX.test(t)) return t.toLowerCase();
  if (BASE64.test(t)) {
    const hex = base64ToHex(t);
    if (hex && hex.length === bytes * 2) return hex;
  }
  if (HEX.test(t)) return t.toLowerCase();
  // Phoenix and Langfuse ids are free-form (UUIDs, "span-1"): keep them, as text.
  return t;
}

function longToBigInt(v: Record<string, unknown>): bigint {
  const low = BigInt(Number(v.low ?? 0) >>> 0);
  const high = BigInt(Number(v.high ?? 0) >>> 0);
  return (high << 32n) | low;
}

/**
 * A point in time as nanoseconds since the epoch (a bigint: 2^53 ns is only 104 days): a number,
 * a string of digits, Long's `{low, high}`, the SDK's hr-time `[seconds, nanoseconds]`, or an ISO date.
 */
export function normalizeTime(v: unknown): bigint | null {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v === 'bigint') return v;
  if (Array.isArray(v))
    return v.length === 2 && Number.isSafeInteger(v[0]) && Number.isSafeInteger(v[1])
      ? BigInt(v[0]) * 1_000_000_000n + BigInt(v[1])
      : null;
  if (typeof v === 'number') return Number.isFinite(v) ? BigInt(Math.round(v)) : null;
  if (isObject(v) && ('low' in v || 'high' in v)) return longToBigInt(v);
  if (typeof v === 'string') {
    const t = v.trim();
    if (/^\d+$/.test(t)) return BigInt(t);
    if (/^\d+\.\d+$/.test(t)) return BigInt(Math.round(Number(t) * 1e9)); // seconds with a fraction
    return isoToNanos(t);
  }
  return null;
}

/** ISO 8601 with up to nanosecond digits (`2024-05-01T10:00:00.123456789Z`); no zone = UTC. */
function isoToNanos(t: string): bigint | null {
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?$/.exec(t);
  if (!m) return null;
  const ms = Date.parse(`${m[1]}T${m[2]}${m[4] ?? 'Z'}`);
  if (!Number.isFinite(ms)) return null;
  const frac = BigInt((m[3] ?? '').padEnd(9, '0'));
  return BigInt(ms) * 1_000_000n + frac;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Years 1000–9999 (ms since the epoch), where `toISOString` spells the year as 4 digits, as below. */
const ISO_FROM = Date.UTC(1000, 0, 1);
const ISO_TO = Date.UTC(10000, 0, 1);

/** Nanoseconds → the smartcomment timestamp `YYYY-MM-DD HH:MM:SS.mmm` (UTC). */
export function formatNanos(ns: bigint): string {
  const d = new Date(Number(ns / 1_000_000n));
  const ms = d.getTime();
  if (Number.isNaN(ms)) return '1970-01-01 00:00:00.000';
  // One call instead of seven getters and pads (a span each): same text in these years.
  if (ms >= ISO_FROM && ms < ISO_TO) {
    const iso = d.toISOString();
    return `${iso.slice(0, 10)} ${iso.slice(11, 23)}`;
  }
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`
  );
}

/**
 * Parses a JSON string opportunistically (GenAI content attributes MAY be JSON strings). A text
 * that is not JSON, or nests deeper than the importers' limit, stays the text it is.
 */
export function maybeJson(v: AttrValue | undefined): AttrValue | undefined {
  if (typeof v !== 'string') return v;
  const t = v.trimStart();
  if (t[0] !== '[' && t[0] !== '{') return v;
  let parsed: AttrValue;
  try {
    parsed = JSON.parse(v) as AttrValue;
  } catch {
    return v;
  }
  return tooDeepAt(parsed) === null ? parsed : v;
}

/** A text some tools write JSON-encoded (`"\"The quick…\""`, Python's json.dumps of a str) decoded; other text as it is. */
export function decodeJsonString(text: string): string {
  if (!text.startsWith('"')) return text;
  try {
    const inner = JSON.parse(text);
    return typeof inner === 'string' ? inner : text;
  } catch {
    return text;
  }
}

/**
 * The id of a span that has none (or none usable): 8 bytes of hex hashed from where the span is
 * in the file, so the same file gives the same ids; said in a warning naming the place. Such a
 * span is kept with its text, but no other span can name it as its parent.
 */
export function derivedSpanId(place: string, field: string, issues: IssueCollector, path: string): string {
  const id = hash16(`span@${place}`);
  issues.warn(
    'span-id-derived',
    `${field} is missing or not an id; the span was given the id ${id}, derived from its place in the file (no other span can name it as its parent)`,
    path,
  );
  return id;
}
