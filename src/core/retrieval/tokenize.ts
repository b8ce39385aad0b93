/**
 * The paper's tokenizer: lower-case the text, keep maximal runs of `[a-z0-9_]`.
 * Equivalent to `re.findall(r'[a-z0-9_]+', text.lower())` (and to
 * `text.toLowerCase().match(/[a-z0-9_]+/g)`), but scans character codes instead of
 * building a lower-cased copy. Two non-ASCII characters lower-case into ASCII
 * letters and are handled as the reference does: U+0130 'İ' → "i" + U+0307 (the
 * combining dot ends the token), U+212A KELVIN SIGN → "k".
 *
 * Hand-written on purpose: it must equal the paper's regex exactly (libraries stem, drop
 * stop words or split on Unicode classes), and it is the hot loop of BM25 indexing.
 */

const TOKEN_CHAR = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const lower = c >= 65 && c <= 90 ? c + 32 : c;
  TOKEN_CHAR[c] = (lower >= 97 && lower <= 122) || (lower >= 48 && lower <= 57) || lower === 95 ? lower : 0;
}

/** Calls `emit(token)` for every token of `text`, in order. */
function forEachToken(text: string, emit: (token: string) => void): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    // Skip to the start of a token.
    let c = text.charCodeAt(i);
    if (c >= 128 ? c !== 0x130 && c !== 0x212a : TOKEN_CHAR[c] === 0) {
      i++;
      continue;
    }
    // A run of plain lower-case ASCII token chars can be sliced without copying char by char.
    const start = i;
    let plain = true;
    let buf = '';
    while (i < n) {
      c = text.charCodeAt(i);
      if (c < 128) {
        const t = TOKEN_CHAR[c];
        if (t === 0) break;
        if (t !== c && plain) {
          plain = false;
          buf = text.slice(start, i);
        }
        if (!plain) buf += String.fromCharCode(t);
        i++;
      } else if (c === 0x212a) {
        if (plain) {
          plain = false;
          buf = text.slice(start, i);
        }
        buf += 'k';
        i++;
      } else if (c === 0x130) {
        // 'İ' lower-cases to "i\u0307": the 'i' ends this token.
        if (plain) {
          plain = false;
          buf = text.slice(start, i);
        }
        buf += 'i';
        i++;
        break;
      } else break;
    }
    emit(plain ? text.slice(start, i) : buf);
  }
}

/** The paper's tokens of a text (see the module comment). */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  forEachToken(text, (t) => out.push(t));
  return out;
}

/** The reference definition the fast scanner must equal (used by tests). */
export function tokenizeReference(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9_]+/g) ?? [];
}

/** The token character a source character maps to (0: not a token character); İ also ends its token. */
function tokenCode(c: number): number {
  return c < 128 ? TOKEN_CHAR[c] : c === 0x212a ? 107 : c === 0x130 ? 105 : 0;
}

/**
 * Interns tokens as integer ids while scanning, without allocating a string per token:
 * an open-addressing hash table compares candidate terms with the source text
 * character by character (every source character maps to exactly one token
 * character, so lengths agree). New terms are the only allocations.
 */
export class TermTable {
  readonly terms: string[] = [];
  private hashes = new Int32Array(1024);
  private slots = new Int32Array(1 << 12).fill(-1);
  private mask = (1 << 12) - 1;

  static fromTerms(terms: readonly string[]): TermTable {
    const t = new TermTable();
    for (const term of terms) t.scan(term, () => {});
    if (t.terms.length !== terms.length) throw new Error('term list is not a list of distinct tokens');
    return t;
  }

  get size(): number {
    return this.terms.length;
  }

  /** The id of a term (already tokenized), or -1. */
  id(term: string): number {
    let found = -1;
    let count = 0;
    this.scan(
      term,
      (id) => {
        found = id;
        count++;
      },
      false,
    );
    return count === 1 ? found : -1;
  }

  /**
   * Calls `emit(id)` for every token of `text` in order. With `add` false, unknown
   * tokens are skipped instead of added.
   */
  scan(text: string, emit: (id: number) => void, add = true): void {
    const n = text.length;
    let i = 0;
    while (i < n) {
      let t = tokenCode(text.charCodeAt(i));
      if (t === 0) {
        i++;
        continue;
      }
      const start = i;
      let h = 0x811c9dc5;
      let plain = true;
      while (i < n) {
        const c = text.charCodeAt(i);
        t = tokenCode(c);
        if (t === 0) break;
        if (t !== c) plain = false;
        h = Math.imul(h ^ t, 0x01000193);
        i++;
        if (c === 0x130) break;
      }
      const id = this.lookup(text, start, i, h, plain, add);
      if (id >= 0) emit(id);
    }
  }

  private lookup(text: string, start: number, end: number, h: number, plain: boolean, add: boolean): number {
    const len = end - start;
    let s = h & this.mask;
    for (;;) {
      const id = this.slots[s];
      if (id === -1) break;
      if (this.hashes[id] === h) {
        const term = this.terms[id];
        if (term.length === len) {
          let j = 0;
          while (j < len && term.charCodeAt(j) === tokenCode(text.charCodeAt(start + j))) j++;
          if (j === len) return id;
        }
      }
      s = (s + 1) & this.mask;
    }
    if (!add) return -1;
    let term: string;
    if (plain) term = text.slice(start, end);
    else {
      term = '';
      for (let j = start; j < end; j++) term += String.fromCharCode(tokenCode(text.charCodeAt(j)));
    }
    const id = this.terms.length;
    this.terms.push(term);
    if (id === this.hashes.length) {
      const b = new Int32Array(id * 2);
      b.set(this.hashes);
      this.hashes = b;
    }
    this.hashes[id] = h;
    this.slots[s] = id;
    if (this.terms.length * 2 > this.mask) this.grow();
    return id;
  }

  private grow(): void {
    const cap = (this.mask + 1) * 2;
    this.slots = new Int32Array(cap).fill(-1);
    this.mask = cap - 1;
    for (let id = 0; id < this.terms.length; id++) {
      let s = this.hashes[id] & this.mask;
      while (this.slots[s] !== -1) s = (s + 1) & this.mask;
      this.slots[s] = id;
    }
  }
}
