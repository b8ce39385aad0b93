/**
 * The one nesting limit of every importer. JSON.parse reads any depth, but rendering and
 * export recurse (`JSON.stringify`, value views) and would overflow the stack on a value
 * nested thousands of levels deep; no real trace comes near the limit. The check itself walks
 * with an explicit stack, so no input can overflow it either, and it stops at the first place
 * past the limit.
 */

/** Deepest nesting of objects / lists accepted in a field (the field's own value is level 1). */
export const MAX_NESTING = 256;

/** A container being walked: its keys (objects) and the next child to visit. */
interface Frame {
  node: Record<string, unknown> | unknown[];
  keys: string[] | null;
  next: number;
}

function frame(node: object): Frame {
  return Array.isArray(node)
    ? { node, keys: null, next: 0 }
    : { node: node as Record<string, unknown>, keys: Object.keys(node), next: 0 };
}

/**
 * Where `value` nests objects or lists more than `limit` levels deep (the value itself is
 * level 1): the keys from `value` down to the first container past the limit, or null when
 * it does not. Never recurses.
 */
export function tooDeepAt(value: unknown, limit = MAX_NESTING): (string | number)[] | null {
  if (typeof value !== 'object' || value === null) return null;
  if (limit < 1) return [];
  const stack: Frame[] = [frame(value)];
  const path: (string | number)[] = []; // path[i] = the key of stack[i + 1] in stack[i]
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    const size = top.keys ? top.keys.length : (top.node as unknown[]).length;
    if (top.next >= size) {
      stack.pop();
      path.pop();
      continue;
    }
    const key = top.keys ? top.keys[top.next] : top.next;
    top.next++;
    const child = (top.node as Record<string | number, unknown>)[key];
    if (typeof child !== 'object' || child === null) continue;
    if (stack.length >= limit) return [...path, key];
    stack.push(frame(child));
    path.push(key);
  }
  return null;
}

/** Whether `value` nests objects or lists more than `limit` levels deep (see `tooDeepAt`). */
export function nestsDeeperThan(value: unknown, limit = MAX_NESTING): boolean {
  return tooDeepAt(value, limit) !== null;
}

/** A path from `tooDeepAt` appended to a record path: `data.nodes[3].value` + `[0].a` → `data.nodes[3].value[0].a`. */
export function joinPath(base: string, keys: readonly (string | number)[]): string {
  return keys.reduce<string>(
    (p, k) =>
      typeof k === 'number'
        ? `${p}[${k}]`
        : /^[A-Za-z_$][\w$]*$/.test(k)
          ? `${p}.${k}`
          : `${p}[${JSON.stringify(k)}]`,
    base,
  );
}

/** Path segments shown before the rest of a deep path is cut to `…`. */
const SHOWN_SEGMENTS = 12;

/** Where `value` nests too deep, as a short path (`.a[0].b…`, cut after a few segments), or null. */
export function deepPlace(value: unknown, limit = MAX_NESTING): string | null {
  const path = tooDeepAt(value, limit);
  if (path === null) return null;
  const shown = joinPath('', path.slice(0, SHOWN_SEGMENTS));
  return path.length > SHOWN_SEGMENTS ? `${shown}…` : shown;
}

/** The one message for a value nested too deep (the place is given with it). */
export const TOO_DEEP_MESSAGE = `nests more than ${MAX_NESTING} levels deep; such a file cannot be shown or exported`;
