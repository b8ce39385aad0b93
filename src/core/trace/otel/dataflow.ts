/**
 * Dataflow from text: the units a text is matched by when an earlier span's output (or a
 * stored text) turns up inside a later span's input. A unit is a line, a sentence, or a string
 * inside JSON (objects and lists, decoded however deep the attribute nested them, escapes
 * included), a labelled line also without its label ("Question: …"), normalised: Unicode-compatible forms, case and whitespace folded, list markers
 * and quotes and end punctuation dropped. Outputs are filed under their units in a hash map and
 * each input looks its units up, so linking costs the size of the texts, never all pairs.
 */

import { appendAll } from '../../arrays.ts';

/** Units shorter than this (after normalising) say too little to link two spans ("noted", "i don't know"). */
const MIN_UNIT = 16;
/** How many JSON string leaves one text gives at most (a huge array is matched by its lines). */
const MAX_LEAVES = 512;
/** JSON nesting followed when decoding (attributes are checked for depth on import; this bounds the walk). */
const MAX_DEPTH = 64;

/** A unit's normal form (see the module comment). */
export function normalizeUnit(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^(?:[-*•>]+|\d{1,3}[.)])\s+/, '')
    .replace(/^["'`“‘(]+/, '')
    .replace(/["'`”’).,;:!?]+$/, '')
    .trim();
}

/** The strings inside a JSON text (leaves, depth-first), or null when it is not JSON. */
function jsonStrings(text: string): string[] | null {
  const t = text.trim();
  if (!(t.startsWith('{') || t.startsWith('[') || t.startsWith('"'))) return null;
  let value: unknown;
  try {
    value = JSON.parse(t);
  } catch {
    return null;
  }
  const out: string[] = [];
  const walk = (v: unknown, depth: number) => {
    if (out.length >= MAX_LEAVES || depth > MAX_DEPTH) return;
    if (typeof v === 'string') {
      // A string holding JSON again (a tool's arguments, an input.value) is decoded too.
      const inner = depth < MAX_DEPTH ? jsonStrings(v) : null;
      if (inner) appendAll(out, inner);
      else out.push(v);
    } else if (Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x, depth + 1);
  };
  walk(value, 0);
  return out;
}

/** Literal escapes (`\n`, `\"`, `\u00e9`) written into a text by a double encoding, decoded. */
function decodeEscapes(s: string): string {
  if (!/\\[nrt"\\u]/.test(s)) return s;
  try {
    return JSON.parse(`"${s.replace(/(?<!\\)"/g, '\\"')}"`) as string;
  } catch {
    return s.replace(/\\n/g, '\n').replace(/\\t/g, '\t').replace(/\\"/g, '"');
  }
}

/** A short label at the start of a line: a speaker or a prompt's field name. */
const LABEL = /^\s*[A-Za-z][\w .'-]{0,24}:\s+(?=\S)/;

/** Sentences of a line: split after `.`, `!` or `?` followed by a space and a capital or digit. */
function sentences(line: string): string[] {
  return line.split(/(?<=[.!?])\s+(?=["'“(]?[A-Z0-9])/);
}

/**
 * The pieces of a text as written, in order: each line and each of its sentences (a labelled
 * line also without its label), of the text and of every string inside it when it is JSON.
 */
export function textPieces(text: string): string[] {
  const out: string[] = [];
  const pieces = jsonStrings(text) ?? [text];
  for (const piece of pieces)
    for (const line of decodeEscapes(piece).split(/\r?\n/)) {
      out.push(line);
      // A labelled line ("Question: …", "User: …") is also its text without the label.
      const labelled = LABEL.exec(line);
      if (labelled) out.push(line.slice(labelled[0].length));
      const parts = sentences(line.trim());
      if (parts.length > 1) appendAll(out, parts);
    }
  return out;
}

/**
 * The normalised units of a text (deduplicated, in order): its pieces (`textPieces`) normalised,
 * those shorter than `MIN_UNIT` left out.
 */
export function textUnits(text: string): string[] {
  const seen = new Set<string>();
  for (const p of textPieces(text)) {
    const n = normalizeUnit(p);
    if (n.length >= MIN_UNIT) seen.add(n);
  }
  return [...seen];
}
