/** Writes a document back to smartcomment JSON: the same records, keys and order as read. */
import type { TraceDocument } from './types.ts';

/** Options of `exportSmartcomment`. */
export interface ExportOptions {
  /** Spaces of indentation (the toolkit writes 2); 0 writes compact JSON. */
  indent?: number;
}

/** The document as smartcomment JSON text: its own records, keys and order (2-space indent unless chosen). */
export function exportSmartcomment(doc: TraceDocument, options: ExportOptions = {}): string {
  return JSON.stringify(doc, null, options.indent ?? 2);
}

/**
 * The text `exportSmartcomment` writes, in pieces: the top level and `data` piece by piece and
 * each record of `data`'s lists as its own piece, so a writer holds a record's text at a time,
 * never the whole file's (joined, the pieces are exactly `exportSmartcomment(doc, options)`).
 */
export function* smartcommentPieces(doc: TraceDocument, options: ExportOptions = {}): Generator<string> {
  const width = Math.min(10, Math.max(0, Math.floor(options.indent ?? 2)));
  if (width === 0) yield exportSmartcomment(doc, options);
  else yield* pieces(doc, '', ' '.repeat(width), 0);
}

/** Containers split into pieces: the document (level 0), `data` (1) and its lists (2). */
const SPLIT_LEVELS = 2;

/** `JSON.stringify(value, null, gap)` as it reads at indentation `indent`, in pieces (`value` is one JSON writes). */
function* pieces(value: unknown, indent: string, gap: string, level: number): Generator<string> {
  const inner = indent + gap;
  if (level <= SPLIT_LEVELS && Array.isArray(value)) {
    if (value.length === 0) return yield '[]';
    for (let i = 0; i < value.length; i++) {
      yield i === 0 ? `[\n${inner}` : `,\n${inner}`;
      // As JSON.stringify writes them in a list: undefined, a function or a symbol is null.
      if (writes(value[i])) yield* pieces(value[i], inner, gap, level + 1);
      else yield 'null';
    }
    return yield `\n${indent}]`;
  }
  if (level <= SPLIT_LEVELS && isPlainObject(value)) {
    // As JSON.stringify does: a key whose value it cannot write is left out.
    const keys = Object.keys(value).filter((k) => writes(value[k]));
    if (keys.length === 0) return yield '{}';
    for (const [i, k] of keys.entries()) {
      yield `${i === 0 ? '{' : ','}\n${inner}${JSON.stringify(k)}: `;
      yield* pieces(value[k], inner, gap, level + 1);
    }
    return yield `\n${indent}}`;
  }
  const text = JSON.stringify(value, null, gap);
  // JSON text holds no raw line break inside a string, so every one is indentation.
  yield indent ? text.replaceAll('\n', `\n${indent}`) : text;
}

/** Whether JSON.stringify writes the value (not undefined, a function, a symbol, or what `toJSON` makes one of those). */
function writes(v: unknown): boolean {
  if (typeof v === 'object' && v !== null && typeof (v as { toJSON?: unknown }).toJSON === 'function')
    return JSON.stringify(v) !== undefined;
  return v !== undefined && typeof v !== 'function' && typeof v !== 'symbol';
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || typeof (v as { toJSON?: unknown }).toJSON === 'function')
    return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
