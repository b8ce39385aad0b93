/**
 * Keys given twice where it changes what a trace is. JSON.parse keeps the last of two equal
 * keys without a word, so a second top-level `"data"` (a file concatenated or merged by hand)
 * silently replaces the whole graph. This scans the already-parsed text once for the keys of
 * the top-level object and of `data` (the record lists): strings are skipped with `indexOf`,
 * nested values by bracket depth, so a 100 MB file costs one pass and no allocation per value.
 */

/** A key of the top level or of `data` given more than once with a different value. */
interface DuplicateKey {
  /** `$.graph_id`, `data`, `data.nodes`, … */
  path: string;
  /** 1-based line of the later key (the one JSON.parse keeps) and of the first. */
  line: number;
  firstLine: number;
}

const QUOTE = 34;
const BACKSLASH = 92;

/** Index just past the string starting at `i` (a `"`). */
function stringEnd(text: string, i: number): number {
  let j = i + 1;
  for (;;) {
    const q = text.indexOf('"', j);
    if (q < 0) return text.length;
    let slashes = 0;
    for (let k = q - 1; text.charCodeAt(k) === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/** Index just past the JSON value starting at `i` (text known to be valid JSON). */
function valueEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return stringEnd(text, i);
  if (c !== 123 && c !== 91) {
    let j = i;
    while (j < text.length && !/[\s,\]}]/.test(text[j])) j++;
    return j;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const d = text.charCodeAt(j);
    if (d === QUOTE) j = stringEnd(text, j) - 1;
    else if (d === 123 || d === 91) depth++;
    else if (d === 125 || d === 93) {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return text.length;
}

const skipSpace = (text: string, i: number) => {
  while (i < text.length && /\s/.test(text[i])) i++;
  return i;
};

function lineAt(text: string, at: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * Keys of the top-level object and of its `data` object that appear twice with different
 * values (the same value twice changes nothing and is not reported). `text` must be valid JSON.
 */
export function duplicateKeys(text: string): DuplicateKey[] {
  const found: DuplicateKey[] = [];
  /** Reads the object at `i` (its keys; `data`'s own keys at the top level); returns where it ends. */
  const scan = (i: number, prefix: string): number => {
    const seen = new Map<string, { at: number; value: string }>();
    let j = skipSpace(text, i + 1);
    while (j < text.length && text[j] !== '}') {
      const keyEnd = stringEnd(text, j);
      const key = JSON.parse(text.slice(j, keyEnd)) as string;
      const start = skipSpace(text, skipSpace(text, keyEnd) + 1); // past the colon
      const nested = prefix === '' && key === 'data' && text[start] === '{';
      const end = nested ? scan(start, 'data') : valueEnd(text, start);
      const value = text.slice(start, end);
      const before = seen.get(key);
      if (before && before.value !== value)
        found.push({
          path: prefix ? `${prefix}.${key}` : key === 'data' ? 'data' : `$.${key}`,
          line: lineAt(text, j),
          firstLine: lineAt(text, before.at),
        });
      seen.set(key, { at: j, value });
      j = skipSpace(text, end);
      if (text[j] === ',') j = skipSpace(text, j + 1);
    }
    return j + 1;
  };
  const start = skipSpace(text, 0);
  if (text[start] === '{') scan(start, '');
  return found;
}
