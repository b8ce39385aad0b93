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

/** Returns null when the text is valid JSON. */
export function findJsonSyntaxError(text: string): JsonSyntaxError | null {
  let i = 0;
  const n = text.length;
  // Stack of containers: 'o' expecting key or '}', 'O' after a value in an object, 'a'/'A' likewise for arrays.
  const stack: string[] = [];
  const fail = (offset: number, message: string): JsonSyntaxError => ({
    offset,
    ...lineColumnAt(text, offset),
    message,
  });
  const describe = (at: number) => (at >= n ? 'end of input' : `'${text[at] === '\n' ? '\\n' : text[at]}'`);
  const skipWs = () => {
    while (i < n && WS.has(text.charCodeAt(i))) i++;
  };
  const readString = (): JsonSyntaxError | null => {
    const start = i;
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return null;
      }
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return fail(i, 'bad \\u escape in string');
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else return fail(i, 'bad escape in string');
      } else if (c < 0x20) return fail(i, 'control character in string (strings cannot span lines)');
      else i++;
    }
    return fail(start, 'unterminated string');
  };
  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const readScalar = (): JsonSyntaxError | null => {
    const c = text[i];
    if (c === '"') return readString();
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return null;
      }
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (m && m[0].length > 0) {
      i += m[0].length;
      return null;
    }
    return fail(i, `unexpected ${describe(i)}, expected a value`);
  };

  skipWs();
  if (i >= n) return fail(i, 'empty input, expected a value');
  for (;;) {
    // Parse a value at i.
    skipWs();
    const c = text[i];
    if (c === '{' || c === '[') {
      stack.push(c === '{' ? 'o' : 'a');
      i++;
      skipWs();
      const close = c === '{' ? '}' : ']';
      if (text[i] === close) {
        stack.pop();
        i++;
      } else if (c === '{') {
        if (text[i] !== '"') return fail(i, `unexpected ${describe(i)}, expected a property name or '}'`);
        const err = readString();
        if (err) return err;
        skipWs();
        if (text[i] !== ':') return fail(i, `unexpected ${describe(i)}, expected ':'`);
        i++;
        continue;
      } else continue;
    } else {
      const err = readScalar();
      if (err) return err;
    }
    // After a value: close containers or expect a separator.
    for (;;) {
      skipWs();
      const top = stack[stack.length - 1];
      if (top === undefined) {
        if (i < n) return fail(i, `unexpected ${describe(i)} after the top-level value`);
        return null;
      }
      const close = top === 'o' ? '}' : ']';
      if (text[i] === close) {
        stack.pop();
        i++;
        continue;
      }
      if (text[i] !== ',') return fail(i, `unexpected ${describe(i)}, expected ',' or '${close}'`);
      i++;
      skipWs();
      if (top === 'o') {
        if (text[i] !== '"') return fail(i, `unexpected ${describe(i)}, expected a property name`);
        const err = readString();
        if (err) return err;
        skipWs();
        if (text[i] !== ':') return fail(i, `unexpected ${describe(i)}, expected ':'`);
        i++;
      }
      break;
    }
  }
}
