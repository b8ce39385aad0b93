/**
 * Streaming read of a smartcomment file: bytes arrive in chunks, are decoded strictly, and the
 * records of `data`'s lists are cut out one by one and each `JSON.parse`d as it completes, so the
 * file's whole text never exists next to the document (a 100 MB trace held three times: bytes,
 * text, document). The document built is the one `JSON.parse` would give — same keys, same
 * order — and goes through the same checks as `parseTraceText` (`checkParsedValue`).
 *
 * Only the plain layout is read this way: one top-level object whose `data` object holds lists.
 * Anything else — a span format's other layout is fine, but broken JSON, bad bytes, a key given
 * twice at the top or in `data`, JSON Lines — makes the reader give up (`null`), and the caller
 * reads the file whole with `parseTraceText`, which words each problem with its exact place. So
 * every message stays the whole-text reader's, and bad input costs a second read only.
 */
import { checkParsedValue, type ImportOptions, type ImportResult } from './import.ts';
import { IssueCollector } from './issues.ts';
import { VersionTexts } from './version-text.ts';

/** Where the top-level object is: which container is open and what comes next in it. */
type Expect = 'key' | 'key-or-end' | 'colon' | 'value' | 'value-or-end' | 'next';

interface Frame {
  /** `top`: the file's object; `data`: its `data` object; `list`: one of `data`'s lists. */
  kind: 'top' | 'data' | 'list';
  expect: Expect;
  target: Record<string, unknown> | unknown[];
  /** Keys seen (objects): a key given twice is left to the whole-text reader to report. */
  keys: Set<string>;
  /** The key whose value comes next (objects); the list's name in `data` (lists). */
  key: string;
}

/** A value being cut out of the text (it may span chunks). */
interface Capture {
  kind: 'string' | 'container' | 'scalar';
  parts: string[];
  depth: number;
  inString: boolean;
  /** The previous character was an unescaped backslash (inside a string). */
  escaped: boolean;
  /** What the value is: a key of an object, or a value. */
  role: 'key' | 'value';
}

const WS = new Set([0x20, 0x0a, 0x0d, 0x09]);

/** Strings up to this long are shared between records; longer ones are rarely equal, and costly to hash. */
const SHARED_MAX = 256;

/**
 * One copy of each short string the records repeat: `JSON.parse` makes a new string for every
 * occurrence, and a trace repeats its graph id, project, session, file name, comments and
 * variable ids in thousands of records (about 8% of the synthetic 100 MB trace's document).
 */
class StringPool {
  readonly #known = new Map<string, string>();

  /** Replaces the record's short string fields (and those of its objects, e.g. `metadata`) by the pool's copy. */
  share(value: unknown, depth = 0): void {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || depth > 1) return;
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const field = record[key];
      if (typeof field !== 'string') this.share(field, depth + 1);
      else if (field.length <= SHARED_MAX) {
        const known = this.#known.get(field);
        if (known === undefined) this.#known.set(field, field);
        else record[key] = known;
      }
    }
  }
}

/** Thrown inside the splitter when the text leaves the plain layout; never escapes this module. */
class NotPlain extends Error {}

/**
 * Cuts a smartcomment file's text, fed in chunks, into its top-level fields, `data`'s fields and
 * the records of `data`'s lists, each parsed as soon as it is complete; `finish` returns the
 * document. Throws `NotPlain` where the text leaves the plain layout.
 */
class RecordSplitter {
  readonly #root: Record<string, unknown> = {};
  readonly #stack: Frame[] = [];
  readonly #pool = new StringPool();
  /** The variable records' long values, stored as cuts of shared texts as they arrive. */
  readonly #texts = new VersionTexts();
  #capture: Capture | null = null;
  #started = false;
  #ended = false;

  /** Feeds the next piece of text. */
  push(text: string): void {
    let i = 0;
    while (i < text.length) {
      if (this.#capture) {
        i = this.#scan(text, i);
        continue;
      }
      const c = text.charCodeAt(i);
      if (WS.has(c)) i++;
      else {
        this.#structural(c);
        i++;
        // A value that starts here keeps its first character (the quote, bracket or digit).
        (this.#capture as Capture | null)?.parts.push(text[i - 1]);
      }
    }
  }

  /** The document, once the text has ended exactly after the top-level object. */
  finish(): Record<string, unknown> {
    // A scalar's end is only seen at the next character; none is valid at the end of the file.
    if (!this.#ended || this.#capture) throw new NotPlain();
    this.#texts.finish();
    return this.#root;
  }

  /** One character outside any captured value: a bracket, colon or comma, or a value's first character. */
  #structural(c: number): void {
    const f = this.#stack.at(-1);
    if (this.#ended) throw new NotPlain();
    if (!f) {
      if (this.#started || c !== 0x7b) throw new NotPlain(); // the file is one object
      this.#started = true;
      this.#stack.push(frame('top', this.#root, 'key-or-end'));
    } else if (f.expect === 'key' || f.expect === 'key-or-end') {
      if (c === 0x7d && f.expect === 'key-or-end') this.#close();
      else if (c === 0x22) this.#begin(c, 'key');
      else throw new NotPlain();
    } else if (f.expect === 'colon') {
      if (c !== 0x3a) throw new NotPlain();
      f.expect = 'value';
    } else if (f.expect === 'value' || f.expect === 'value-or-end') {
      if (c === 0x5d && f.expect === 'value-or-end') this.#close();
      else this.#openValue(f, c);
    } else if (c === 0x2c) f.expect = f.kind === 'list' ? 'value' : 'key';
    else if (c === (f.kind === 'list' ? 0x5d : 0x7d)) this.#close();
    else throw new NotPlain();
  }

  /** A value starts: `data`'s object and its lists are entered; anything else is captured whole. */
  #openValue(f: Frame, c: number): void {
    if (f.kind === 'top' && f.key === 'data' && c === 0x7b) {
      const data: Record<string, unknown> = {};
      this.#root.data = data;
      this.#stack.push(frame('data', data, 'key-or-end'));
    } else if (f.kind === 'data' && c === 0x5b) {
      const list: unknown[] = [];
      (f.target as Record<string, unknown>)[f.key] = list;
      // A list's frame keeps the list's name (it has no keys of its own).
      this.#stack.push(frame('list', list, 'value-or-end', f.key));
    } else this.#begin(c, 'value');
  }

  #begin(c: number, role: Capture['role']): void {
    const kind = c === 0x22 ? 'string' : c === 0x7b || c === 0x5b ? 'container' : 'scalar';
    this.#capture = { kind, parts: [], depth: 1, inString: false, escaped: false, role };
  }

  #close(): void {
    this.#stack.pop();
    const parent = this.#stack.at(-1);
    if (parent) parent.expect = 'next';
    else this.#ended = true;
  }

  /** Scans the captured value from `i`; returns where scanning stopped (the value's end or the text's). */
  #scan(text: string, i: number): number {
    const cap = this.#capture as Capture;
    const end =
      cap.kind === 'string'
        ? stringEnd(cap, text, i)
        : cap.kind === 'container'
          ? containerEnd(cap, text, i)
          : scalarEnd(text, i);
    if (end < 0) {
      cap.parts.push(text.slice(i));
      return text.length;
    }
    cap.parts.push(text.slice(i, end));
    this.#capture = null;
    this.#complete(cap, parse(cap.parts.join('')));
    return end;
  }

  /** A captured key or value is complete: a key is checked, a value stored where it belongs. */
  #complete(cap: Capture, value: unknown): void {
    const f = this.#stack.at(-1) as Frame;
    if (cap.role === 'key') {
      // A repeated key is the whole-text reader's to report; `__proto__` would set a prototype here.
      if (typeof value !== 'string' || f.keys.has(value) || value === '__proto__') throw new NotPlain();
      f.keys.add(value);
      f.key = value;
      f.expect = 'colon';
      return;
    }
    if (f.kind === 'list') {
      this.#pool.share(value);
      if (f.key === 'nodes') this.#texts.add(value);
      (f.target as unknown[]).push(value);
    } else (f.target as Record<string, unknown>)[f.key] = value;
    f.expect = 'next';
  }
}

function frame(kind: Frame['kind'], target: Frame['target'], expect: Expect, key = ''): Frame {
  return { kind, expect, target, keys: new Set(), key };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new NotPlain();
  }
}

/**
 * Index just past the closing quote of the string being captured (its opening quote already
 * taken), or -1 when the text ends first. Jumps from quote to quote; a quote after an odd run of
 * backslashes is escaped.
 */
function stringEnd(cap: Capture, text: string, i: number): number {
  let p = i;
  if (cap.escaped) {
    if (p >= text.length) return -1;
    cap.escaped = false;
    p++;
  }
  for (;;) {
    const q = text.indexOf('"', p);
    const stop = q < 0 ? text.length : q;
    let k = stop - 1;
    while (k >= p && text.charCodeAt(k) === 0x5c) k--;
    const odd = (stop - 1 - k) % 2 === 1;
    if (q < 0) {
      cap.escaped = odd;
      return -1;
    }
    if (!odd) return q + 1;
    p = q + 1;
  }
}

/** Index just past the object or list being captured (its opening bracket already taken), or -1. */
function containerEnd(cap: Capture, text: string, i: number): number {
  let p = i;
  while (p < text.length) {
    if (cap.inString) {
      const e = stringEnd(cap, text, p);
      if (e < 0) return -1;
      cap.inString = false;
      p = e;
      continue;
    }
    const c = text.charCodeAt(p++);
    if (c === 0x22) cap.inString = true;
    else if (c === 0x7b || c === 0x5b) cap.depth++;
    else if ((c === 0x7d || c === 0x5d) && --cap.depth === 0) return p;
  }
  return -1;
}

/** Index of the character that ends a number, `true`, `false` or `null` (not part of it), or -1. */
function scalarEnd(text: string, i: number): number {
  for (let p = i; p < text.length; p++) {
    const c = text.charCodeAt(p);
    if (WS.has(c) || c === 0x2c || c === 0x7d || c === 0x5d) return p;
  }
  return -1;
}

/**
 * Reads a trace from its bytes, chunk by chunk (a `Blob.stream()`, a Node read stream): strictly
 * decoded, cut into records and parsed as they arrive, then checked as `parseTraceText` checks.
 * Returns null when the file is not the plain smartcomment layout or has a problem whose exact
 * place the whole-text reader gives (broken JSON, bad UTF-8, a repeated key at the top or in
 * `data`): read it whole with `parseTraceText` then. Never throws on bad input (a failing
 * source's error is passed on).
 */
export async function parseTraceChunks(
  chunks: AsyncIterable<Uint8Array>,
  options: ImportOptions,
): Promise<ImportResult | null> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const parsed: { value: unknown } = { value: undefined };
  try {
    const splitter = new RecordSplitter();
    for await (const chunk of chunks) splitter.push(decoder.decode(chunk, { stream: true }));
    splitter.push(decoder.decode());
    parsed.value = splitter.finish();
  } catch (e) {
    if (e instanceof NotPlain || e instanceof TypeError) return null; // TypeError: a bad byte
    throw e;
  }
  return checkParsedValue(parsed, new IssueCollector(options.file, options.maxIssues));
}
