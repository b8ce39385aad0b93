/**
 * Build-time rewrite of wink-lexicon's WordNet tables, the lemmatizer's data and about 1.7 MB
 * of the engine worker's bundle. Each table module fills its object with one statement per
 * word (`words.aaa = 0;` … 77,262 of them), which the browser must parse and compile before
 * the worker can answer; the same table as one JSON string is read by `JSON.parse` several
 * times faster, and the word → position table (`wn-words`) as a plain word list faster still. The values do not change (tests/core/wink-tables.test.ts compares them):
 * prototype-less objects stay prototype-less and shared sense lists stay shared. The app's
 * build applies it to the value Node's loader reads from each module (vite.config.ts); Node code
 * reads the package as it is.
 */
/** The table modules wink-lemmatizer requires. */
export const WINK_TABLES =
  /[\\/]wink-lexicon[\\/]src[\\/]wn-(?:words|word-senses|noun-exceptions|verb-exceptions|adjective-exceptions)\.js$/;

/** A JSON text as a JavaScript string literal. */
const literal = (value: unknown) => JSON.stringify(JSON.stringify(value));

function isPrimitive(x: unknown): boolean {
  return x === null || ['string', 'number', 'boolean'].includes(typeof x);
}

/**
 * The keys of a word → position table (`wn-words`: each word's value is its place in the
 * table), which a plain word list rebuilds at half the bytes and faster than its JSON; null for
 * any other object (or a key a line break or an index-like name would not survive).
 */
function positionTable(value: Record<string, unknown>): string[] | null {
  const keys = Object.keys(value);
  const ok = keys.every((k, i) => value[k] === i && !k.includes('\n') && !/^\d+$/.test(k));
  return keys.length > 0 && ok ? keys : null;
}

/**
 * The CommonJS module source that rebuilds `value` from JSON, or null for a value of another
 * shape: an object of strings and numbers (its prototype kept null when it was; a prototype-less
 * word → position table as a word list), or an array of lists of numbers (each distinct list
 * once, shared as in the original).
 */
export function tableModule(value: unknown): string | null {
  if (Array.isArray(value)) {
    if (!value.every((x) => Array.isArray(x) && x.every(isPrimitive))) return null;
    const lists = [...new Set(value as unknown[][])];
    const at = new Map(lists.map((l, i) => [l, i]));
    return `const lists = JSON.parse(${literal(lists)});\nmodule.exports = JSON.parse(${literal(value.map((l) => at.get(l)))}).map((i) => lists[i]);\n`;
  }
  if (typeof value !== 'object' || value === null) return null;
  const proto = Object.getPrototypeOf(value);
  if (proto !== null && proto !== Object.prototype) return null;
  if (!Object.values(value).every(isPrimitive)) return null;
  // Prototype-less only: there "__proto__" is a word like any other.
  const list = proto === null ? positionTable(value as Record<string, unknown>) : null;
  if (list !== null) {
    return `const words = ${JSON.stringify(list.join('\n'))}.split('\\n');\nconst table = Object.create(null);\nfor (let i = 0; i < words.length; i++) table[words[i]] = i;\nmodule.exports = table;\n`;
  }
  const parsed = `JSON.parse(${literal(value)})`;
  return `module.exports = ${proto === null ? `Object.setPrototypeOf(${parsed}, null)` : parsed};\n`;
}
