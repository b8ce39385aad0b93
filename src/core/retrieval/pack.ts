/**
 * A compact binary container for indexes: a JSON header plus typed arrays, each
 * 8-byte aligned so they can be viewed in place after reading. Layout:
 * "MTRX" | u32 format version | u32 header bytes | header JSON (UTF-8) | padding | arrays.
 * Transferable as one ArrayBuffer (worker ↔ UI), storable as one IndexedDB value or file.
 */

/** The typed arrays a packed container can hold. */
export type PackedArray = Int32Array | Uint32Array | Float32Array | Float64Array | Uint8Array;
type ArrayKind = 'i32' | 'u32' | 'f32' | 'f64' | 'u8';

const MAGIC = 0x5852544d; // "MTRX" little-endian
const FORMAT = 1;

function kindOf(a: PackedArray): ArrayKind {
  if (a instanceof Int32Array) return 'i32';
  if (a instanceof Uint32Array) return 'u32';
  if (a instanceof Float32Array) return 'f32';
  if (a instanceof Float64Array) return 'f64';
  return 'u8';
}

const align8 = (n: number) => (n + 7) & ~7;

/** Packs a JSON-able header and named typed arrays into one buffer (layout in the module comment). */
export function pack(meta: Record<string, unknown>, arrays: Record<string, PackedArray>): Uint8Array {
  const names = Object.keys(arrays);
  const layout = names.map((name) => ({ name, kind: kindOf(arrays[name]), length: arrays[name].length }));
  const header = new TextEncoder().encode(JSON.stringify({ meta, arrays: layout }));
  let size = align8(12 + header.length);
  const starts: number[] = [];
  for (const name of names) {
    starts.push(size);
    size = align8(size + arrays[name].byteLength);
  }
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, FORMAT, true);
  view.setUint32(8, header.length, true);
  out.set(header, 12);
  names.forEach((name, i) => {
    const a = arrays[name];
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), starts[i]);
  });
  return out;
}

/** What `unpack` returns: the header and the arrays by name, viewing the packed bytes. */
export interface Unpacked {
  meta: Record<string, unknown>;
  arrays: Record<string, PackedArray>;
}

/**
 * Reads a packed buffer: the arrays are views into it (a misaligned input is copied once). Throws on a bad
 * magic, unknown format or truncated data.
 */
export function unpack(bytes: Uint8Array): Unpacked {
  if (bytes.byteLength < 12) throw new Error('not a memtrace index (too short)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== MAGIC) throw new Error('not a memtrace index (bad magic)');
  const format = view.getUint32(4, true);
  if (format !== FORMAT) throw new Error(`unsupported index format ${format}`);
  const hlen = view.getUint32(8, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + hlen))) as {
    meta: Record<string, unknown>;
    arrays: { name: string; kind: ArrayKind; length: number }[];
  };
  // Copy once into an aligned buffer when the input is not 8-aligned (e.g. a Node Buffer slice).
  const base = bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
  let pos = align8(12 + hlen);
  const arrays: Record<string, PackedArray> = {};
  for (const { name, kind, length } of header.arrays) {
    const off = base.byteOffset + pos;
    const buf = base.buffer;
    const a =
      kind === 'i32'
        ? new Int32Array(buf, off, length)
        : kind === 'u32'
          ? new Uint32Array(buf, off, length)
          : kind === 'f32'
            ? new Float32Array(buf, off, length)
            : kind === 'f64'
              ? new Float64Array(buf, off, length)
              : new Uint8Array(buf, off, length);
    if (pos + a.byteLength > base.byteLength) throw new Error('truncated memtrace index');
    arrays[name] = a;
    pos = align8(pos + a.byteLength);
  }
  return { meta: header.meta, arrays };
}
