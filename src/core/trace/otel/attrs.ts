/** Reading decoded span attributes: plain checks, text, flattened indexed lists. */
import { type AttrValue, maybeJson } from './values.ts';

/** Decoded attributes of a span or event (null prototype). */
export type Attrs = Record<string, AttrValue>;

export function isObject(v: unknown): v is Attrs {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A non-empty string, else null. */
export const str = (v: AttrValue | undefined): string | null =>
  typeof v === 'string' && v !== '' ? v : null;

/** Any value as text: strings as they are, everything else as JSON. */
export function asText(v: AttrValue | undefined): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

/** A number from a number, a boolean or a numeric string. */
export function num(v: AttrValue | undefined): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

/**
 * Collects flattened indexed attributes (`llm.input_messages.0.message.role`) into a list
 * of objects keyed by the rest of the name (`message.role`); a structured list under the
 * prefix itself is accepted too.
 */
export function indexed(attrs: Attrs, prefix: string): Attrs[] {
  const direct = maybeJson(attrs[prefix]);
  if (Array.isArray(direct)) return direct.map((x) => (isObject(x) ? flatten(x) : { value: x }));
  const rows: Attrs[] = [];
  const head = `${prefix}.`;
  for (const key of Object.keys(attrs)) {
    if (!key.startsWith(head)) continue;
    const rest = key.slice(head.length);
    const dot = rest.indexOf('.');
    const n = Number(dot < 0 ? rest : rest.slice(0, dot));
    if (!Number.isInteger(n) || n < 0 || n > 100_000) continue;
    rows[n] ??= Object.create(null);
    rows[n][dot < 0 ? '' : rest.slice(dot + 1)] = attrs[key];
  }
  return rows.filter(Boolean);
}

/**
 * Nested objects → dotted keys (`{message: {role}}` → `message.role`); lists stay lists.
 * Iterative: the readers check nesting before, but a walk never needs the call stack.
 */
export function flatten(obj: Attrs): Attrs {
  const out: Attrs = Object.create(null);
  const stack: [Attrs, string][] = [[obj, '']];
  while (stack.length) {
    const [o, prefix] = stack.pop()!;
    for (const key of Object.keys(o)) {
      const v = o[key];
      const k = prefix ? `${prefix}.${key}` : key;
      if (isObject(v)) stack.push([v, k]);
      else out[k] = v;
    }
  }
  return out;
}
