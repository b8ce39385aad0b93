/**
 * The one nesting limit of every importer (smartcomment records, OTLP `arrayValue` /
 * `kvlistValue`, Phoenix attributes, Langfuse input / metadata, JSON read from inside a
 * string). Rendering, export and the readers walk values, and JSON.stringify recurses: a value
 * nested thousands of levels deep would overflow the stack. No real trace comes near the limit.
 */

/** Deepest nesting of objects / lists accepted below a record's field or anywhere in a span file. */
export const MAX_NESTING = 256;

/** Path segments shown before the rest of a deep path is cut to `…`. */
const SHOWN_SEGMENTS = 12;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function segment(key: string | number): string {
  if (typeof key === 'number') return `[${key}]`;
  return IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function hasObjectChild(v: object): boolean {
  if (Array.isArray(v)) {
    for (const child of v) if (typeof child === 'object' && child !== null) return true;
    return false;
  }
  for (const key in v)
    if (Object.hasOwn(v, key)) {
      const child = (v as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null) return true;
    }
  return false;
}

/**
 * Where `value` nests objects / lists more than `limit` levels (the value itself is level 1):
 * the path below it (`.a[0].b…`, cut after a few segments), or null when it does not. Iterative
 * (an explicit stack), so a value nested 100,000 levels deep is checked without recursion; a flat
 * value allocates nothing.
 */
export function tooDeepAt(value: unknown, limit = MAX_NESTING): string | null {
  if (typeof value !== 'object' || value === null || !hasObjectChild(value)) return null;
  // One frame per open level: the container, its keys (null for a list) and the next index.
  const nodes: object[] = [value];
  const keys: (string[] | null)[] = [Array.isArray(value) ? null : Object.keys(value)];
  const next: number[] = [0];
  const path: (string | number)[] = [];
  while (nodes.length) {
    const top = nodes.length - 1;
    const node = nodes[top];
    const names = keys[top];
    const i = next[top]++;
    const size = names ? names.length : (node as unknown[]).length;
    if (i >= size) {
      nodes.pop();
      keys.pop();
      next.pop();
      path.pop();
      continue;
    }
    const key = names ? names[i] : i;
    const child = (node as Record<string | number, unknown>)[key];
    if (typeof child !== 'object' || child === null) continue;
    path.length = nodes.length - 1;
    path.push(key);
    if (nodes.length + 1 > limit) return describe(path);
    nodes.push(child);
    keys.push(Array.isArray(child) ? null : Object.keys(child));
    next.push(0);
  }
  return null;
}

function describe(path: (string | number)[]): string {
  const shown = path.slice(0, SHOWN_SEGMENTS).map(segment).join('');
  return path.length > SHOWN_SEGMENTS ? `${shown}…` : shown;
}

/** The one message for a value nested too deep (the place is given with it). */
export const TOO_DEEP_MESSAGE = `nests more than ${MAX_NESTING} levels deep; such a file cannot be shown or exported`;
