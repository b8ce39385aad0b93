/**
 * Reads values the smartcomment toolkit stored as Python `repr()` text
 * ("'hello'", "['a', 'b']", "{'k': True}") — or JSON — back into plain data.
 * Opportunistic: returns undefined when the text is neither, and the caller shows it as text.
 *
 * Hand-written on purpose: no maintained npm package reads Python literals (the ones that
 * exist evaluate Python or target JSON5/YAML), and this reader must never throw on
 * hostile text and must read big values by slices without copying.
 */
import type { Json, JsonObject } from './types.ts';

const ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
  '0': '\0',
};

/** JavaScript's `\s` by character code (a regex test per character made reading a store slow). */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** How a value the reader reads starts: a quote, a bracket, or a scalar (`Reader.value`). */
const VALUE_START = /^(?:['"[({]|True|False|None|null|true|false|-?\.?\d|-?inf|nan)/;
/** How a JSON text starts (a subset of `VALUE_START`): JSON reads nothing else. */
const JSON_START = /^[{["\-\dtfn]/;

class Reader {
  i = 0;
  constructor(readonly s: string) {}
  ws() {
    while (this.i < this.s.length && isSpace(this.s.charCodeAt(this.i))) this.i++;
  }
  value(depth: number): Json {
    if (depth > 200) throw new Error('too deep');
    this.ws();
    const c = this.s[this.i];
    if (c === "'" || c === '"') return this.str();
    if (c === '[' || c === '(') return this.list(c === '[' ? ']' : ')', depth);
    if (c === '{') return this.dict(depth);
    const m = /^(True|False|None|null|true|false|-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|-?inf|nan)/.exec(
      this.s.slice(this.i, this.i + 64),
    );
    if (!m) throw new Error('unexpected');
    this.i += m[0].length;
    const w = m[0];
    if (w === 'True' || w === 'true') return true;
    if (w === 'False' || w === 'false') return false;
    if (w === 'None' || w === 'null') return null;
    return Number(w.replace('inf', 'Infinity').replace('nan', 'NaN'));
  }
  str(): string {
    const s = this.s;
    const q = s[this.i++];
    // Runs between escapes are found by indexOf and joined once: values can be megabytes.
    const parts: string[] = [];
    let quote = -1;
    for (;;) {
      if (quote < this.i) quote = s.indexOf(q, this.i);
      if (quote === -1) throw new Error('unterminated');
      const slash = this.nextSlash();
      const end = slash !== -1 && slash < quote ? slash : quote;
      parts.push(s.slice(this.i, end));
      this.i = end + 1;
      if (end === quote) return parts.length === 1 ? parts[0] : parts.join('');
      parts.push(this.escape(q));
    }
  }
  // The next backslash at or after `i`, found again only once `i` passes it: the reader moves
  // forward only, so a text's backslashes are searched for once in all (not once per string).
  #slash = -2;
  nextSlash(): number {
    if (this.#slash !== -1 && this.#slash < this.i) this.#slash = this.s.indexOf('\\', this.i);
    return this.#slash;
  }
  /** The text of the escape after a backslash (the backslash read). */
  escape(q: string): string {
    const e = this.s[this.i++];
    if (e === 'x' || e === 'u' || e === 'U') {
      const len = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = this.s.slice(this.i, this.i + len);
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) throw new Error('bad escape');
      this.i += len;
      return String.fromCodePoint(Number.parseInt(hex, 16));
    }
    if (e === '/' && q === '"') return '/';
    if (e !== undefined && e in ESCAPES) return ESCAPES[e];
    return `\\${e ?? ''}`;
  }
  list(close: string, depth: number): Json[] {
    this.i++;
    const out: Json[] = [];
    for (;;) {
      this.ws();
      if (this.s[this.i] === close) {
        this.i++;
        return out;
      }
      out.push(this.value(depth + 1));
      this.ws();
      if (this.s[this.i] === ',') this.i++;
      else if (this.s[this.i] !== close) throw new Error('expected , or close');
    }
  }
  dict(depth: number): JsonObject {
    this.i++;
    const entries: [string, Json][] = [];
    for (;;) {
      this.ws();
      if (this.s[this.i] === '}') {
        this.i++;
        // fromEntries defines own properties, so a "__proto__" key stays data.
        return Object.fromEntries(entries);
      }
      const k = this.value(depth + 1);
      this.ws();
      if (this.s[this.i++] !== ':') throw new Error('expected :');
      entries.push([typeof k === 'string' ? k : JSON.stringify(k), this.value(depth + 1)]);
      this.ws();
      if (this.s[this.i] === ',') this.i++;
      else if (this.s[this.i] !== '}') throw new Error('expected , or }');
    }
  }
}

/** Parses a Python literal or JSON text; undefined when it is neither. */
export function parseValue(text: string): Json | undefined {
  const t = text.trim();
  // Told from its start, a plain text is no value: tried, each parser would throw, and a
  // thrown error costs more than the parse (a walk reads thousands of message texts).
  if (!VALUE_START.test(t)) return undefined;
  if (JSON_START.test(t))
    try {
      return JSON.parse(t) as Json;
    } catch {
      // not JSON: try a Python literal
    }
  try {
    const r = new Reader(t);
    const v = r.value(0);
    r.ws();
    return r.i === t.length ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The human text of a stored value: a quoted Python/JSON string is unquoted, anything else is kept as is. */
export function valueText(text: string): string {
  const t = text.trim();
  const q = t[0];
  if ((q === "'" || q === '"') && t.length >= 2 && t[t.length - 1] === q) {
    const v = parseValue(t);
    if (typeof v === 'string') return v;
  }
  return text;
}

/** A stored value as a list of strings (golden answers are stored as a list repr or a plain string). */
export function valueStrings(text: string): string[] {
  const v = parseValue(text);
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x)));
  if (typeof v === 'string') return [v];
  if (typeof v === 'number' || typeof v === 'boolean') return [String(v)];
  return [text];
}

/** Pretty multi-line text for a value that parses as JSON or a Python literal; the value itself otherwise. */
export function prettyValue(text: string): string {
  const v = parseValue(text);
  if (v === undefined || typeof v === 'string' || v === null || typeof v !== 'object') return valueText(text);
  return JSON.stringify(v, null, 2);
}

type Dict = Record<string, unknown>;
const isDict = (v: unknown): v is Dict => !!v && typeof v === 'object' && !Array.isArray(v);
const SPEAKER_FIELDS = ['speaker', 'name', 'role', 'sender', 'author', 'user'];
const TEXT_FIELDS = ['content', 'text', 'message'];

/** The text of a message's content: a string, or the texts of a list of parts (`[{type, text}]`). */
function contentText(c: unknown): string | null {
  if (typeof c === 'string') return c;
  if (Array.isArray(c) && c.length && c.every((p) => isDict(p) && typeof p.text === 'string'))
    return c.map((p) => (p as Dict).text as string).join('\n');
  return null;
}

/**
 * A stored message as people read it: a dict (JSON or Python literal, or a string holding
 * one) with a speaker and a text field becomes "speaker: text", with its time in brackets when
 * it has one; null for anything else. JSON escapes are decoded (`\ud83e\udd29` is 🤩).
 */
export function messageText(text: string): string | null {
  let v = parseValue(text);
  if (typeof v === 'string') v = parseValue(v);
  if (!isDict(v)) return null;
  const body = TEXT_FIELDS.map((k) => contentText(v[k])).find((x) => x !== null);
  const speaker = SPEAKER_FIELDS.map((k) => v[k]).find((x) => typeof x === 'string' && x.trim());
  if (body === undefined || typeof speaker !== 'string') return null;
  const time = ['timestamp', 'time', 'created_at', 'date']
    .map((k) => v[k])
    .find((x) => typeof x === 'string');
  return `${speaker}: ${body}${typeof time === 'string' ? `  (${time})` : ''}`;
}

/**
 * The value as the workspace shows it: a message as "speaker: text", a string holding JSON as
 * that JSON pretty-printed (escapes decoded), else `prettyValue`.
 */
export function readableValue(text: string): string {
  const message = messageText(text);
  if (message !== null) return message;
  const v = parseValue(text);
  if (typeof v === 'string' && /^\s*[[{]/.test(v)) {
    const inner = parseValue(v);
    if (inner && typeof inner === 'object') return JSON.stringify(inner, null, 2);
  }
  return prettyValue(text);
}
