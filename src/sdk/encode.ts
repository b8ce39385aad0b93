/**
 * How JavaScript values become smartcomment variable values and content-hash names,
 * matching the Python toolkit: values are Python `repr()` text, content names are
 * `<python type>:<sha1 of json.dumps(value)>` (json.dumps defaults: `", "` and `": "`
 * separators, non-ASCII escaped as `\uXXXX`).
 */

/** A number that Python would hold as a float: `pyRepr(new PyFloat(0))` is `"0.0"`. */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** A JavaScript array that Python would hold as a tuple: `('a', 1)`. */
export class PyTuple {
  constructor(readonly items: unknown[]) {}
}

/** The Python type name of a value: str, int, float, bool, NoneType, list, tuple, dict, set, or a class name. */
export function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'bigint') return 'int';
  if (value instanceof PyFloat) return 'float';
  if (value instanceof PyTuple) return 'tuple';
  if (Array.isArray(value)) return 'list';
  if (value instanceof Map) return 'dict';
  if (value instanceof Set) return 'set';
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    if (proto === Object.prototype || proto === null) return 'dict';
    const name = (proto?.constructor as { name?: string } | undefined)?.name;
    return name || 'object';
  }
  return typeof value;
}

function pyFloatRepr(n: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  if (Object.is(n, -0)) return '-0.0';
  const abs = Math.abs(n);
  if (Number.isInteger(n) && abs < 1e16) return `${n}.0`;
  if (abs >= 1e16 || abs < 1e-4) {
    // Python: 1e-05, 1e+16, 1.5e-07
    const [m, e] = n.toExponential().split('e');
    const exp = Number(e);
    const sign = exp < 0 ? '-' : '+';
    return `${m}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(n);
}

function isPrintable(cp: number): boolean {
  if (cp < 0x20 || cp === 0x7f) return false;
  if (cp >= 0x80 && cp < 0xa0) return false;
  if (cp === 0xad) return false;
  if (cp >= 0xd800 && cp <= 0xdfff) return false; // lone surrogates
  if (cp === 0x2028 || cp === 0x2029 || cp === 0x200b || cp === 0xfeff) return false;
  return true;
}

/** Python's `repr()` of a str. */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (isPrintable(cp)) out += ch;
    else if (cp < 0x100) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return out + quote;
}

/** Python `repr()` of a JavaScript value (objects as dicts, arrays as lists, null as None). */
export function pyRepr(value: unknown, seen: Set<unknown> = new Set()): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'string') return pyStrRepr(value);
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : pyFloatRepr(value);
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof PyFloat) return pyFloatRepr(value.value);
  if (typeof value !== 'object') return pyStrRepr(String(value));
  if (seen.has(value)) return Array.isArray(value) ? '[...]' : '{...}';
  seen.add(value);
  try {
    if (value instanceof PyTuple) {
      const items = value.items.map((v) => pyRepr(v, seen));
      return items.length === 1 ? `(${items[0]},)` : `(${items.join(', ')})`;
    }
    if (Array.isArray(value)) return `[${value.map((v) => pyRepr(v, seen)).join(', ')}]`;
    if (value instanceof Set)
      return value.size === 0 ? 'set()' : `{${[...value].map((v) => pyRepr(v, seen)).join(', ')}}`;
    const entries: [unknown, unknown][] =
      value instanceof Map ? [...value.entries()] : Object.entries(value as Record<string, unknown>);
    return `{${entries.map(([k, v]) => `${pyRepr(k, seen)}: ${pyRepr(v, seen)}`).join(', ')}}`;
  } finally {
    seen.delete(value);
  }
}

function asciiJsonString(s: string): string {
  // JSON.stringify escapes quotes, backslashes and controls like Python's json; Python also
  // escapes every non-ASCII code unit (ensure_ascii=True), and DEL stays raw in both.
  return JSON.stringify(s).replace(
    /[\u0080-\uffff]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * Python `json.dumps(value)` with default arguments. Values JSON cannot hold
 * (functions, symbols, class instances without toJSON) fall back to their repr as a string.
 */
export function pyJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return asciiJsonString(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'NaN';
    if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
    return Number.isInteger(value) ? String(value) : pyFloatRepr(value);
  }
  if (value instanceof PyFloat) {
    const v = value.value;
    if (Number.isNaN(v)) return 'NaN';
    if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
    return pyFloatRepr(v);
  }
  if (value instanceof PyTuple) return `[${value.items.map(pyJsonDumps).join(', ')}]`;
  if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(', ')}]`;
  if (value instanceof Map)
    return `{${[...value.entries()].map(([k, v]) => `${asciiJsonString(String(k))}: ${pyJsonDumps(v)}`).join(', ')}}`;
  if (typeof value === 'object' && pyTypeName(value) === 'dict')
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${asciiJsonString(k)}: ${pyJsonDumps(v)}`)
      .join(', ')}}`;
  return asciiJsonString(pyRepr(value));
}

/** The content-hash name of a value: `<python type>:<sha1 of json.dumps(value)>`. */
export function contentName(value: unknown, sha1: (text: string) => string): string {
  return `${pyTypeName(value)}:${sha1(pyJsonDumps(value))}`;
}
