/**
 * OTLP protobuf → the OTLP/JSON object the receiver stores, in one pass that never recurses:
 * a stack of open messages, driven by the message types of `proto.ts`. Two reasons not to
 * decode with protobufjs and convert with `toObject`: its decoders recurse once per nested
 * message, so an attribute value nested 100,000 deep overflows the stack; and the second pass
 * (then base64 ids → hex) cost more than the decoding. Nesting is counted as the JSON object
 * will nest (a repeated field adds its list), so the importers' limit holds for what is stored.
 */
import type protobuf from 'protobufjs';
import { MAX_NESTING } from '../trace/index.ts';
import { otlpTypes } from './proto.ts';

/** How a field's value is read and what it becomes in OTLP/JSON. */
type FieldKind =
  | 'message'
  | 'string'
  | 'bytes'
  | 'id'
  | 'bool'
  | 'int32'
  | 'uint32'
  | 'int64'
  | 'fixed64'
  | 'fixed32'
  | 'double';

export interface Field {
  /** The OTLP/JSON (lowerCamelCase) name. */
  name: string;
  /** `"name":`, as a JSON object's member starts (wire-json.ts writes it), as bytes. */
  keyBytes: Uint8Array;
  kind: FieldKind;
  repeated: boolean;
  /** The protobuf wire type the field arrives with (another one is skipped as unknown). */
  wire: number;
  /** The message type of a `message` field. */
  type: MessageType | null;
}

/** A message type: its fields by field number. */
export interface MessageType {
  fields: (Field | undefined)[];
}

const WIRE: Record<Exclude<FieldKind, 'message'>, number> = {
  string: 2,
  bytes: 2,
  id: 2,
  bool: 0,
  int32: 0,
  uint32: 0,
  int64: 0,
  fixed64: 1,
  fixed32: 5,
  double: 1,
};
/** Byte fields OTLP/JSON writes as hex rather than base64. */
const ID_FIELDS = new Set(['traceId', 'spanId', 'parentSpanId']);

let requestType: MessageType | null = null;

/** The request's message types from the protobufjs reflection (built once; shared by recursive types). */
function messageType(t: protobuf.Type, seen = new Map<protobuf.Type, MessageType>()): MessageType {
  const known = seen.get(t);
  if (known) return known;
  const out: MessageType = { fields: [] };
  seen.set(t, out);
  for (const f of t.fieldsArray) {
    f.resolve();
    const nested =
      f.resolvedType && 'fieldsArray' in f.resolvedType ? (f.resolvedType as protobuf.Type) : null;
    const kind: FieldKind = nested
      ? 'message'
      : f.type === 'bytes' && ID_FIELDS.has(f.name)
        ? 'id'
        : (f.type as FieldKind);
    if (!nested && !(kind in WIRE)) throw new Error(`wire.ts: no reader for ${t.name}.${f.name} (${f.type})`);
    out.fields[f.id] = {
      name: f.name,
      keyBytes: Buffer.from(`${JSON.stringify(f.name)}:`),
      kind,
      repeated: f.repeated,
      wire: nested ? 2 : WIRE[kind as Exclude<FieldKind, 'message'>],
      type: nested ? messageType(nested, seen) : null,
    };
  }
  return out;
}

/** The request's message type (built on first use). */
export function requestMessageType(): MessageType {
  requestType ??= messageType(otlpTypes().request);
  return requestType;
}

/** Reads the wire format from a buffer (protobuf's varints, fixed widths and lengths). */
export class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}

  fail(what: string): never {
    throw new Error(`${what} at byte ${this.pos}`);
  }

  /** A varint's low 32 bits (unsigned); the rest of a longer varint is read and dropped. */
  varint32(): number {
    const b = this.buf;
    let value = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      if (this.pos >= b.length) this.fail('a varint is cut off');
      const byte = b[this.pos++];
      if (shift < 32) value |= (byte & 0x7f) << shift;
      if (byte < 0x80) return value >>> 0;
    }
    return this.fail('a varint is longer than 10 bytes');
  }

  /** A 64-bit varint as a decimal string (signed, as int64 is). */
  varint64(): string {
    const start = this.pos;
    const low = this.varint32();
    if (this.pos - start <= 4) return String(low); // under 2^28: no high bits
    let value = 0n;
    for (let i = this.pos - 1; i >= start; i--) value = (value << 7n) | BigInt(this.buf[i] & 0x7f);
    return BigInt.asIntN(64, value).toString();
  }

  /** The end of a length-delimited field that starts here, checked against the end of its message. */
  lengthEnd(limit: number): number {
    const len = this.varint32();
    const end = this.pos + len;
    if (end > limit) this.fail(`a field of ${len} bytes runs past the end of its message`);
    return end;
  }

  /** Skips a field of an unknown number (or an unexpected wire type). */
  skip(wire: number, limit: number): void {
    if (wire === 0) this.varint32();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.pos = this.lengthEnd(limit);
    else if (wire === 5) this.pos += 4;
    else if (wire === 3) this.skipGroup(limit);
    else this.fail(`wire type ${wire} is not valid`);
    if (this.pos > limit) this.fail('a field runs past the end of its message');
  }

  /** A (deprecated) group: fields up to its end tag, groups inside counted, not recursed into. */
  skipGroup(limit: number): void {
    for (let open = 1; open > 0; ) {
      if (this.pos >= limit) this.fail('a group is not closed');
      const wire = this.varint32() & 7;
      if (wire === 3) open++;
      else if (wire === 4) open--;
      else this.skip(wire, limit);
    }
  }

  /** A scalar field's value as OTLP/JSON writes it. */
  scalar(kind: FieldKind, limit: number): unknown {
    const b = this.buf;
    if (kind === 'string' || kind === 'bytes' || kind === 'id') {
      const end = this.lengthEnd(limit);
      const start = this.pos;
      this.pos = end;
      return b.toString(kind === 'string' ? 'utf8' : kind === 'id' ? 'hex' : 'base64', start, end);
    }
    if (kind === 'bool') return this.varint32() !== 0;
    if (kind === 'int32') return this.varint32() | 0;
    if (kind === 'uint32') return this.varint32();
    if (kind === 'int64') return this.varint64();
    const width = kind === 'fixed32' ? 4 : 8;
    if (this.pos + width > limit) this.fail(`a ${kind} field is cut off`);
    const at = this.pos;
    this.pos += width;
    if (kind === 'fixed32') return b.readUInt32LE(at);
    if (kind === 'fixed64') return uint64Decimal(b.readUInt32LE(at + 4), b.readUInt32LE(at));
    const d = b.readDoubleLE(at);
    return Number.isFinite(d) ? d : String(d); // NaN / Infinity as strings, as protobuf JSON does
  }
}

/**
 * `high · 2^32 + low` in decimal, exactly, in doubles (a BigInt per timestamp cost more than
 * the rest of a span): 2^32 = 4294 · 10^6 + 967296, and every partial sum stays under 2^53.
 */
function uint64Decimal(high: number, low: number): string {
  if (high === 0) return String(low);
  let below = high * 967_296 + low; // < 4.2e15
  const above = high * 4294 + Math.floor(below / 1e6); // the value's digits above the 6 lowest
  below %= 1e6;
  return `${above}${String(below).padStart(6, '0')}`;
}

/** A message being read: its object, where it ends, its JSON depth, and its keys on the path. */
interface Frame {
  type: MessageType;
  obj: Record<string, unknown>;
  end: number;
  depth: number;
  keys: number;
}

/** The decoded request, or where it nests deeper than the importers' limit (and what was read by then). */
export type WireResult =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; value: Record<string, unknown>; deepAt: (string | number)[] };

/**
 * Decodes an `ExportTraceServiceRequest` into OTLP/JSON: ids as hex, 64-bit integers as
 * strings, other bytes as base64. Throws on bytes that are not protobuf; stops at the first
 * message past `MAX_NESTING` levels of the JSON it would make.
 */
export function decodeWire(body: Uint8Array): WireResult {
  const r = new Reader(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
  const value: Record<string, unknown> = {};
  const stack: Frame[] = [
    { type: requestMessageType(), obj: value, end: body.byteLength, depth: 1, keys: 0 },
  ];
  const path: (string | number)[] = [];
  for (;;) {
    const top = stack[stack.length - 1];
    if (r.pos >= top.end) {
      if (stack.length === 1) return { ok: true, value };
      stack.pop();
      path.pop(); // (popping is much faster than setting the length)
      if (top.keys === 2) path.pop();
      continue;
    }
    const tag = r.varint32();
    const f = top.type.fields[tag >>> 3];
    if (!f || (tag & 7) !== f.wire) {
      r.skip(tag & 7, top.end);
      continue;
    }
    if (!f.type) {
      top.obj[f.name] = r.scalar(f.kind, top.end);
      continue;
    }
    const end = r.lengthEnd(top.end);
    const child: Record<string, unknown> = {};
    const depth = top.depth + (f.repeated ? 2 : 1);
    if (f.repeated) {
      if (!top.obj[f.name]) top.obj[f.name] = [];
      const list = top.obj[f.name] as unknown[];
      path.push(f.name);
      if (top.depth + 1 > MAX_NESTING) return { ok: false, value, deepAt: path };
      path.push(list.length);
      list.push(child);
    } else {
      top.obj[f.name] = child; // a message field sent twice: the last one (not merged)
      path.push(f.name);
    }
    if (depth > MAX_NESTING) return { ok: false, value, deepAt: path };
    stack.push({ type: f.type, obj: child, end, depth, keys: f.repeated ? 2 : 1 });
  }
}
