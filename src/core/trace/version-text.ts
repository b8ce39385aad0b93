/**
 * Variable versions that repeat their previous version's text, stored once. A long-context
 * window gets a new version every turn whose value is the whole window: the previous one
 * trimmed at the front plus the new message. `JSON.parse` makes each a string of its own (a
 * 100 MB trace holds 88 MiB of windows, almost all repeated); here a version that continues its
 * variable's previous value keeps only its new tail, appended to a text shared by the chain.
 *
 * Values are Python reprs: a window is `'…'`, a store `[('…', '…'), …]`. The quotes and brackets
 * at a value's ends are not where the next version has them, so no value is one cut of the
 * shared text; each keeps its opening and closing characters apart (a few, pooled), and its
 * record's `value` becomes an accessor that reads `open + cut + close` — a string equal to the
 * parsed one, made at each read and dropped by the reader. JSON, structured clone
 * and every reader of `record.value` see a plain string; assigning `value` stores a plain one.
 *
 * A chain's text is built in segments: the appended tails wait in a list and are joined once
 * (one flat string) when the segment is sealed, and only then do the versions read from it —
 * a read of a text still growing (a cons string) would flatten it, a full copy each time.
 * Until then a version keeps its parsed value, so the parsed values waiting are bounded by the
 * seal; each segment starts with its chain's last value again (stored twice: bounded by the
 * seal's share).
 */

/** Values shorter than this are left as parsed (short repeats are pooled by the streaming reader). */
const MIN_CHARS = 1024;
/** Characters of a value looked up in its previous value to find where the two agree. */
const PROBE = 64;
/** Places of the probe tried before giving up (a text that repeats itself has many). */
const MAX_TRIES = 8;
/** A segment is sealed once its appended tails reach this share of its first value. */
const SEAL_SHARE = 0.5;
/** …or once the parsed values waiting for it hold this many characters. */
const SEAL_WAITING = 4_000_000;
/**
 * Characters that open and close a Python repr (`'…'`, `[…]`, `[('…', '…')]`): a window's value
 * is its text between quotes, so its shared text leaves them out; each version keeps its own.
 */
const OPENERS = new Set(["'", '"', '[', '(', '{']);
const CLOSERS = new Set(["'", '"', ']', ')', '}']);
const MAX_EDGE = 8;

/** How much text the versions' values hold, and how much is stored for them. */
export interface VersionTextStats {
  /** Values stored as cuts of a shared text. */
  shared: number;
  /** Their characters, summed over the values. */
  valueChars: number;
  /** The shared texts' characters (what is held for them). */
  storedChars: number;
}

interface Member {
  record: Record<string, unknown>;
  /** The value is `open`, the shared text from `start` to `end`, then `close`. */
  open: string;
  start: number;
  end: number;
  close: string;
}

/** One variable's open segment: its text so far (in parts), the versions placed in it, and the value at its end. */
class Chain {
  parts: string[] = [];
  length = 0;
  seed = 0;
  waiting = 0;
  members: Member[] = [];
  /** The shared part of the value ending at the segment's end (its closing characters left out), and where it starts. */
  last = '';
  lastStart = 0;

  /** Starts the segment with `body` (the shared part of the chain's last value, or of a value that continues nothing). */
  reset(body: string): void {
    this.parts = [body];
    this.length = body.length;
    this.seed = body.length;
    this.waiting = 0;
    this.members = [];
    this.last = body;
    this.lastStart = 0;
  }

  /** A segment holding just `value`. */
  begin(record: Record<string, unknown>, value: string, pool: Map<string, string>): void {
    const open = edgeOf(value, OPENERS, 0);
    const close = edgeOf(value, CLOSERS, open.length);
    this.reset(value.slice(open.length, value.length - close.length));
    this.add({ record, open: pooled(open, pool), start: 0, end: this.length, close: pooled(close, pool) });
  }

  /**
   * Places `value` in the segment when, its opening characters left out, it continues the value
   * at the segment's end; false when it does not.
   */
  place(record: Record<string, unknown>, value: string, pool: Map<string, string>): boolean {
    const open = pooled(edgeOf(value, OPENERS, 0), pool);
    const core = open ? value.slice(open.length) : value;
    const d = overlapStart(this.last, core);
    if (d < 0) return false;
    const start = this.lastStart + d;
    const inside = this.last.length - d;
    if (core.length <= inside) {
      this.add({ record, open, start, end: start + core.length, close: '' });
      return true;
    }
    // Its closing characters may start inside what it shares: then only the rest is its own.
    const body = Math.max(core.length - edgeOf(core, CLOSERS, 0).length, inside);
    if (body > inside) {
      this.parts.push(core.slice(inside, body));
      this.length += body - inside;
    }
    this.last = core.slice(0, body);
    this.lastStart = start;
    this.add({ record, open, start, end: start + body, close: pooled(core.slice(body), pool) });
    return true;
  }

  add(member: Member): void {
    this.members.push(member);
    this.waiting += valueLength(member);
  }

  full(): boolean {
    const appended = this.length - this.seed;
    return appended >= this.seed * SEAL_SHARE || (this.members.length > 1 && this.waiting >= SEAL_WAITING);
  }
}

/**
 * The few characters that open (`OPENERS`, from the start) or close (`CLOSERS`, from the end)
 * `value`, leaving its first `skip` characters alone.
 */
function edgeOf(value: string, chars: Set<string>, skip: number): string {
  const atEnd = chars === CLOSERS;
  let n = 0;
  const room = Math.min(MAX_EDGE, value.length - skip);
  while (n < room && chars.has(value[atEnd ? value.length - 1 - n : n])) n++;
  return atEnd ? value.slice(value.length - n) : value.slice(0, n);
}

/** A member's value length. */
function valueLength(m: Member): number {
  return m.open.length + m.end - m.start + m.close.length;
}

/** The pool's copy of a few closing characters (so no version keeps its parsed value alive through them). */
function pooled(close: string, pool: Map<string, string>): string {
  if (close === '') return '';
  let known = pool.get(close);
  if (known === undefined) {
    // V8 copies a cut this short rather than referring to its parent; the pool keeps one copy.
    known = close;
    pool.set(close, close);
  }
  return known;
}

/**
 * Where `next` starts inside `prev` such that `prev` from there on and `next` agree over the
 * shorter of the two, covering at least half of `next`; -1 when there is no such place.
 */
export function overlapStart(prev: string, next: string): number {
  const probe = next.slice(0, PROBE);
  let d = prev.indexOf(probe);
  for (let tries = 0; d >= 0 && tries < MAX_TRIES; tries++) {
    const m = Math.min(prev.length - d, next.length);
    if (m * 2 < next.length) return -1; // later places agree over less
    // Two cuts compared whole (a memory compare): `startsWith` goes character by character.
    if (prev.slice(d, d + m) === next.slice(0, m)) return d;
    d = prev.indexOf(probe, d + 1);
  }
  return -1;
}

/** Makes the record's `value` read as the shared text's cut (and its closing characters); assigning it stores a plain value again. */
function storeCut(record: Record<string, unknown>, shared: SharedText, m: Member): void {
  const { text } = shared;
  const { open, start, end, close } = m;
  // A new string at each read, copied whole by its first reader and dropped with it: young
  // garbage. Kept for later reads, the copies would outlive young collections (a cache of the last
  // 32 read made a reading of every value gather 90 MiB in the old generation).
  const get = open || close ? () => open + text.slice(start, end) + close : () => text.slice(start, end);
  const set = (value: unknown) => {
    Object.defineProperty(record, 'value', { value, writable: true, enumerable: true, configurable: true });
  };
  Object.defineProperty(record, 'value', { get, set, enumerable: true, configurable: true });
  // Not enumerable and keyed by a symbol: JSON and structured clone leave it out.
  Object.defineProperty(record, VALUE_CUT, { value: { shared, start, end, open, close } satisfies ValueCut });
}

const VALUE_CUT = Symbol('value cut');

/** One sealed segment of a variable's text, shared by the versions cut from it (one object: versions group by it). */
export interface SharedText {
  readonly text: string;
  /** Where its versions' cuts start and end, sorted, once each (with 0 and the text's length). */
  readonly bounds: Int32Array;
}

/** A shared value: `open`, its segment's text from `start` to `end`, then `close` (its repr's quotes and brackets). */
export interface ValueCut {
  readonly shared: SharedText;
  readonly start: number;
  readonly end: number;
  readonly open: string;
  readonly close: string;
}

/**
 * A shared value's cut of its segment's text, for a reader that needs no whole string (a words
 * index reads each segment once for all its versions); null for a value held as a plain string
 * (or reassigned since).
 */
export function valueCut(record: object): ValueCut | null {
  if (!hasSharedValue(record)) return null;
  return (record as { [VALUE_CUT]?: ValueCut })[VALUE_CUT] ?? null;
}

/**
 * The first character of the record's string value that is not white space ('' when none), read
 * from a shared value's parts: a read of the value itself would copy it whole.
 */
export function firstMark(record: object): string {
  const cut = valueCut(record);
  if (cut === null) {
    const value = (record as { value?: unknown }).value;
    return typeof value === 'string' ? (NOT_SPACE.exec(value)?.[0] ?? '') : '';
  }
  if (cut.open) return cut.open[0];
  return NOT_SPACE.exec(cut.shared.text.slice(cut.start, cut.end))?.[0] ?? cut.close.slice(0, 1);
}

const NOT_SPACE = /\S/;

/** Whether the record's value is stored as a cut of a shared text (read through an accessor, not held). */
export function hasSharedValue(record: object): boolean {
  return typeof Object.getOwnPropertyDescriptor(record, 'value')?.get === 'function';
}

/**
 * Stores the long string values of variable records (`data.nodes`), fed in file order, as cuts
 * of one text per variable where a version continues the previous one; `finish` seals the rest.
 * Records are changed in place (`value` becomes an accessor reading the same text); a value that
 * is not a long string is left alone.
 */
export class VersionTexts {
  readonly #chains = new Map<string, Chain>();
  readonly #closes = new Map<string, string>();
  readonly #stats: VersionTextStats = { shared: 0, valueChars: 0, storedChars: 0 };

  /** Takes the next variable record (any value: only records with a long string value are stored). */
  add(value: unknown): void {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
    const record = value as Record<string, unknown>;
    const text = record.value;
    const key = chainKey(record);
    if (typeof text !== 'string' || text.length < MIN_CHARS || key === null) return;
    let chain = this.#chains.get(key);
    if (!chain) {
      chain = new Chain();
      chain.begin(record, text, this.#closes);
      this.#chains.set(key, chain);
    } else if (!chain.place(record, text, this.#closes)) {
      this.#seal(chain);
      chain.begin(record, text, this.#closes);
    }
    if (chain.full()) this.#sealAndGoOn(chain);
  }

  /** Seals every chain's open segment; returns what was stored. */
  finish(): VersionTextStats {
    for (const chain of this.#chains.values()) this.#seal(chain);
    this.#chains.clear();
    return { ...this.#stats };
  }

  /** Seals the segment and starts the next with the shared part of the chain's last value (a cut of the sealed text). */
  #sealAndGoOn(chain: Chain): void {
    const text = this.#seal(chain);
    chain.reset(text.slice(chain.lastStart, chain.lastStart + chain.last.length));
  }

  /** Joins the segment into one flat text and makes its versions' values cuts of it. */
  #seal(chain: Chain): string {
    const { members } = chain;
    // A segment of one version and nothing appended: nothing shared, the parsed value stays.
    if (chain.parts.length === 1 && members.length <= 1) return chain.parts[0];
    const text = chain.parts.join('');
    const shared: SharedText = { text, bounds: boundsOf(members, text.length) };
    for (const m of members) {
      storeCut(m.record, shared, m);
      this.#stats.valueChars += valueLength(m);
    }
    this.#stats.shared += members.length;
    // The first part is the previous segment's last value when the chain goes on: stored again here.
    this.#stats.storedChars += text.length;
    chain.members = [];
    return text;
  }
}

/** The members' starts and ends, with 0 and the text's length, sorted, once each. */
function boundsOf(members: Member[], length: number): Int32Array {
  const at = new Set([0, length]);
  for (const m of members) at.add(m.start).add(m.end);
  return Int32Array.from(at).sort();
}

/** The variable a record is a version of (class and name), or null when it names none. */
function chainKey(record: Record<string, unknown>): string | null {
  const { name, class_name: cls } = record;
  if (typeof name !== 'string') return null;
  return `${typeof cls === 'string' ? cls : ''}\u0000${name}`;
}

/** Stores the long values of a parsed document's variable records (`data.nodes`) shared; returns what was stored. */
export function shareVersionTexts(nodes: unknown): VersionTextStats {
  const texts = new VersionTexts();
  if (Array.isArray(nodes)) for (const record of nodes) texts.add(record);
  return texts.finish();
}
