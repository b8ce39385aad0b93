/**
 * The words index of one trace: which variable versions hold every word of a query, each word as
 * a prefix of one of theirs (matches while typing). Words are normalised by FlexSearch's encoder
 * (case, accents, numbers); the postings are kept here.
 *
 * A long-context window gets a version every turn whose text is mostly its previous one's; such
 * versions are stored as cuts of one shared segment text (`valueCut`). Indexing each version's
 * text made one posting per word per version. Here a segment's text is indexed once: it is cut
 * into regions at its versions' starts and ends (moved out to white space, so no word is split),
 * each distinct part of a region that some version holds becomes one document, and a hit on it
 * stands for the versions holding that part. A word is a version's when it is in one of its
 * parts, so a query's words are looked up one by one and their versions intersected. A value held
 * plainly is its own document.
 *
 * Why not FlexSearch's own index: over the 3.5 MB of distinct text of the 100 MB synthetic trace,
 * its forward (prefix) tokenisation allocated about 300 MB and kept 20 MB; a sorted word list
 * searched by prefix gives the same matches from one posting per word and document.
 */
import { Encoder } from 'flexsearch';
import type { SharedText, ValueCut } from '../src/core/trace/index.ts';

/** A version's text: its plain value, its cut of a shared segment, or null (not indexed). */
export type WordsOf = (v: number) => string | ValueCut | null;

/** The versions cut from one segment: variable numbers, and each cut's start and end in the segment's text. */
interface Segment {
  text: string;
  vars: number[];
  starts: number[];
  ends: number[];
}

/** How far a region's end is moved to find white space before the word is left split (a token with no spaces). */
const MAX_WORD = 64;

/** Variable versions by the words they hold; built once per trace (documents are never removed). */
export class WordsIndex {
  readonly #encoder = new Encoder();
  /** Each word's documents, ascending (documents are added in order). */
  readonly #postings = new Map<string, number[]>();
  /** The words, sorted (made at the first search, so a prefix's words are one run). */
  #words: string[] | null = null;
  readonly #segments: Segment[] = [];
  /** Document `count + i` is part `i` of a segment: which segment, the part [a, b) and its region [ra, rb). */
  readonly #parts: { segment: number[]; a: number[]; b: number[]; ra: number[]; rb: number[] } = {
    segment: [],
    a: [],
    b: [],
    ra: [],
    rb: [],
  };

  /** Indexes versions `0 … count - 1`. */
  constructor(
    private readonly count: number,
    wordsOf: WordsOf,
  ) {
    const bySegment = new Map<SharedText, Segment>();
    for (let v = 0; v < count; v++) {
      const words = wordsOf(v);
      if (words === null) continue;
      if (typeof words === 'string') {
        this.#add(v, words);
        continue;
      }
      const s = bySegment.get(words.shared) ?? { text: words.shared.text, vars: [], starts: [], ends: [] };
      bySegment.set(words.shared, s);
      s.vars.push(v);
      s.starts.push(words.start);
      s.ends.push(words.end);
    }
    for (const s of bySegment.values()) this.#addSegment(s);
  }

  /** The versions holding every word of `query` (each a prefix of one of their words), in variable order, at most `limit`. */
  search(query: string, limit: number): number[] {
    const terms = [...new Set(this.#encoder.encode(query))];
    if (terms.length === 0) return [];
    let found = this.#holding(terms[0]);
    for (const term of terms.slice(1)) {
      if (found.size === 0) break;
      const holding = this.#holding(term);
      found = new Set([...found].filter((v) => holding.has(v)));
    }
    return [...found].sort((x, y) => x - y).slice(0, limit);
  }

  /** The versions the documents of every word starting with `prefix` stand for. */
  #holding(prefix: string): Set<number> {
    this.#words ??= [...this.#postings.keys()].sort();
    const words = this.#words;
    const out = new Set<number>();
    for (let i = lowerBound(words, prefix); i < words.length && words[i].startsWith(prefix); i++)
      for (const d of this.#postings.get(words[i]) ?? []) {
        if (d < this.count) out.add(d);
        else this.#versionsOfPart(d - this.count, out);
      }
    return out;
  }

  /** Adds document `id`'s words (each once). */
  #add(id: number, text: string): void {
    for (const word of this.#encoder.encode(firstOccurrences(text))) {
      const docs = this.#postings.get(word);
      if (!docs) this.#postings.set(word, [id]);
      else if (docs[docs.length - 1] !== id) docs.push(id);
    }
  }

  /** Adds to `out` the versions whose cut, within the part's region, is exactly the part. */
  #versionsOfPart(i: number, out: Set<number>): void {
    const { segment, a, b, ra, rb } = this.#parts;
    const s = this.#segments[segment[i]];
    for (let m = 0; m < s.vars.length; m++) {
      const start = s.starts[m];
      const end = s.ends[m];
      if (start < rb[i] && end > ra[i] && Math.max(start, ra[i]) === a[i] && Math.min(end, rb[i]) === b[i])
        out.add(s.vars[m]);
    }
  }

  /** Indexes each distinct part of each region of the segment that a version holds. */
  #addSegment(s: Segment): void {
    const n = this.#segments.push(s) - 1;
    const bounds = regionBounds(s);
    for (const [ra, rb, parts] of regionParts(s, bounds)) {
      for (const [a, b] of parts) {
        const id = this.count + this.#parts.a.push(a) - 1;
        this.#parts.segment.push(n);
        this.#parts.b.push(b);
        this.#parts.ra.push(ra);
        this.#parts.rb.push(rb);
        this.#add(id, s.text.slice(a, b));
      }
    }
  }
}

/**
 * Where the segment's regions begin and end: every cut's start and end, moved out to white space
 * when it falls inside a word (so every word lies within one region), sorted, once each.
 */
function regionBounds(s: Segment): number[] {
  const at = new Set<number>();
  for (const x of [...s.starts, ...s.ends]) {
    if (!insideWord(s.text, x)) {
      at.add(x);
      continue;
    }
    at.add(wordEdge(s.text, x, -1));
    at.add(wordEdge(s.text, x, 1));
  }
  return [...at].sort((x, y) => x - y);
}

/**
 * Each region with the distinct parts of it the segment's versions hold: the whole region where
 * a version covers it, and a version's clipped cut where its start or end falls inside it (only
 * in a region around a split word).
 */
function regionParts(s: Segment, bounds: number[]): [number, number, [number, number][]][] {
  const out: [number, number, [number, number][]][] = [];
  for (let r = 0; r + 1 < bounds.length; r++) {
    const ra = bounds[r];
    const rb = bounds[r + 1];
    let whole = false;
    const clipped = new Map<string, [number, number]>();
    for (let m = 0; m < s.vars.length; m++) {
      const a = Math.max(s.starts[m], ra);
      const b = Math.min(s.ends[m], rb);
      if (a === ra && b === rb) whole = true;
      else if (a < b) clipped.set(`${a} ${b}`, [a, b]);
    }
    const parts: [number, number][] = whole ? [[ra, rb], ...clipped.values()] : [...clipped.values()];
    if (parts.length > 0) out.push([ra, rb, parts]);
  }
  return out;
}

/** Whether position `x` of `text` falls between two characters of one word. */
function insideWord(text: string, x: number): boolean {
  return x > 0 && x < text.length && !isSpace(text.charCodeAt(x - 1)) && !isSpace(text.charCodeAt(x));
}

/** The nearest white space from `x` in direction `dir` (the text's end, or `x` itself past `MAX_WORD` characters). */
function wordEdge(text: string, x: number, dir: -1 | 1): number {
  for (let y = x, steps = 0; steps <= MAX_WORD; y += dir, steps++) {
    if (y <= 0) return 0;
    if (y >= text.length) return text.length;
    if (dir < 0 ? isSpace(text.charCodeAt(y - 1)) : isSpace(text.charCodeAt(y))) return y;
  }
  return x;
}

/** The first place in the sorted `words` whose word is not below `key`. */
function lowerBound(words: string[], key: string): number {
  let lo = 0;
  let hi = words.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (words[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0;
}

/**
 * The text's words (split at white space) each once: the encoder would normalise every copy
 * (a memory window repeats its words many times).
 */
function firstOccurrences(text: string): string {
  const seen = new Set<string>();
  for (const word of text.split(/\s+/)) if (word) seen.add(word);
  return [...seen].join(' ');
}
