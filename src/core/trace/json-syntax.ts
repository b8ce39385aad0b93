/**
 * Locates the first JSON syntax error in a text. Engines word JSON.parse errors
 * differently (and some omit the position), so on failure we rescan the text
 * ourselves to report an exact line:column. Linear, iterative, no recursion.
 */

/** The first JSON syntax error of a text: its offset, 1-based line and column, and what is wrong. */
export interface JsonSyntaxError {
  offset: number;
  line: number;
  column: number;
  message: string;
}

/** The 1-based line and column of a character offset in a text. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** A value read whole (a scalar or an empty container), or a container opened that holds more. */
type ValueStep = 'done' | 'inside' | JsonSyntaxError;

/** A scan of one text: the offset reached and the containers open at it. */
class JsonScanner {
  i = 0;
  readonly n: number;
  /** Open containers: 'o' an object, 'a' an array. */
  private readonly stack: ('o' | 'a')[] = [];

  constructor(private readonly text: string) {
    this.n = text.length;
  }

  fail(offset: number, message: string): JsonSyntaxError {
    return { offset, ...lineColumnAt(this.text, offset), message };
  }

  private describe(at: number): string {
    const t = this.text;
    return at >= this.n ? 'end of input' : `'${t[at] === '\n' ? '\\n' : t[at]}'`;
  }

  skipWs(): void {
    while (this.i < this.n && WS.has(this.text.charCodeAt(this.i))) this.i++;
  }

  private readString(): JsonSyntaxError | null {
    const t = this.text;
    const start = this.i;
    this.i++;
    while (this.i < this.n) {
      const c = t.charCodeAt(this.i);
      if (c === 0x22) {
        this.i++;
        return null;
      }
      if (c === 0x5c) {
        const e = t[this.i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(t.slice(this.i + 2, this.i + 6)))
            return this.fail(this.i, 'bad \\u escape in string');
          this.i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) this.i += 2;
        else return this.fail(this.i, 'bad escape in string');
      } else if (c < 0x20)
        return this.fail(this.i, 'control character in string (strings cannot span lines)');
      else this.i++;
    }
    return this.fail(start, 'unterminated string');
  }

  private readScalar(): JsonSyntaxError | null {
    const t = this.text;
    if (t[this.i] === '"') return this.readString();
    for (const word of ['true', 'false', 'null']) {
      if (t.startsWith(word, this.i)) {
        this.i += word.length;
        return null;
      }
    }
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(t);
    if (m && m[0].length > 0) {
      this.i += m[0].length;
      return null;
    }
    return this.fail(this.i, `unexpected ${this.describe(this.i)}, expected a value`);
  }

  /** A property name and its ':' at i (`expected` says what else could have stood there). */
  private readKey(expected: string): JsonSyntaxError | null {
    if (this.text[this.i] !== '"')
      return this.fail(this.i, `unexpected ${this.describe(this.i)}, expected ${expected}`);
    const err = this.readString();
    if (err) return err;
    this.skipWs();
    if (this.text[this.i] !== ':')
      return this.fail(this.i, `unexpected ${this.describe(this.i)}, expected ':'`);
    this.i++;
    return null;
  }

  /** A value at i: a scalar, an empty container, or a container opened (with its first key read). */
  value(): ValueStep {
    this.skipWs();
    const c = this.text[this.i];
    if (c !== '{' && c !== '[') return this.readScalar() ?? 'done';
    this.stack.push(c === '{' ? 'o' : 'a');
    this.i++;
    this.skipWs();
    if (this.text[this.i] === (c === '{' ? '}' : ']')) {
      this.stack.pop();
      this.i++;
      return 'done';
    }
    if (c === '{') return this.readKey("a property name or '}'") ?? 'inside';
    return 'inside';
  }

  /**
   * After a value: closes the containers it ends, then reads a separator (and the next key):
   * 'next' when a value follows, 'end' at the end of a valid text.
   */
  afterValue(): 'next' | 'end' | JsonSyntaxError {
    for (;;) {
      this.skipWs();
      const top = this.stack[this.stack.length - 1];
      if (top === undefined) {
        if (this.i < this.n)
          return this.fail(this.i, `unexpected ${this.describe(this.i)} after the top-level value`);
        return 'end';
      }
      const close = top === 'o' ? '}' : ']';
      if (this.text[this.i] === close) {
        this.stack.pop();
        this.i++;
        continue;
      }
      if (this.text[this.i] !== ',')
        return this.fail(this.i, `unexpected ${this.describe(this.i)}, expected ',' or '${close}'`);
      this.i++;
      this.skipWs();
      if (top === 'o') return this.readKey('a property name') ?? 'next';
      return 'next';
    }
  }
}

/** Returns null when the text is valid JSON. */
export function findJsonSyntaxError(text: string): JsonSyntaxError | null {
  const s = new JsonScanner(text);
  s.skipWs();
  if (s.i >= s.n) return s.fail(s.i, 'empty input, expected a value');
  for (;;) {
    const v = s.value();
    if (v === 'inside') continue;
    if (v !== 'done') return v;
    const next = s.afterValue();
    if (next === 'end') return null;
    if (next !== 'next') return next;
  }
}
