/**
 * What an import did not understand, said as warnings: text in attributes no reader took (words
 * in none of the texts the span's content kept) and spans that became no op — by the names that
 * let a person find them in the file.
 */
import type { SpanContent } from './items.ts';
import { roleLines } from './messages.ts';
import type { OtelSpan } from './span.ts';
import { type AttrValue, decodeJsonString, maybeJson } from './values.ts';

/** A name and how many spans it was seen on. */
export interface NamedCount {
  name: string;
  spans: number;
}

/** Keys whose values are ids, names, settings or times, never the text a span read or wrote. */
const NOT_TEXT =
  /(^|[._])(id|ids|name|names|model|system|provider|type|kind|version|status|time|timestamp|start_time|end_time|url|uri|endpoint|environment|language|schema|json_schema|headers?|finish_reasons?|reason|mime_type|level|tags?|sdk|service|host|method|path|invocation_parameters|providerMetadata|embeddings?|cost|metadata)$/i;

/** A string that reads as words: letters, and a space or a line break. */
function isProse(v: AttrValue): boolean {
  if (typeof v === 'string') return v.length >= 4 && /\p{L}{2}/u.test(v) && /\s/.test(v);
  if (Array.isArray(v)) return v.some(isProse);
  return false;
}

/** Values longer than this are only compared whole (parsing them again to look inside costs too much). */
const LOOK_INSIDE = 1 << 16;

/** The texts a span's content kept: its items, its records, its evaluations. */
function keptTexts(c: SpanContent): string[] {
  const out = [...c.inputs, ...c.outputs].map((x) => x.text);
  for (const r of c.memory?.records ?? []) if (r.content !== null) out.push(r.content);
  for (const e of c.evaluations)
    for (const t of [e.explanation, e.label, e.query, e.golden, e.prediction]) if (t !== null) out.push(t);
  return out;
}

/** The texts a span kept: a set for the usual case (a text kept as it is), the list to look inside. */
interface Kept {
  set: ReadonlySet<string>;
  list: readonly string[];
}

/** Whether a text is one of the kept texts or inside one, as written or JSON-escaped (inside a kept JSON text). */
function isKept(text: string, kept: Kept): boolean {
  if (kept.set.has(text)) return true;
  const escaped = /["\\\u0000-\u001f]/.test(text) ? JSON.stringify(text).slice(1, -1) : null;
  return kept.list.some((k) => k.includes(text) || (escaped !== null && k.includes(escaped)));
}

/**
 * Whether a value holds words no kept text has: the value itself, else each of its strings
 * (JSON text looked into) under keys that may hold text.
 */
function hasUnkeptText(v: AttrValue, kept: Kept): boolean {
  if (typeof v === 'string') {
    if (!isProse(v) || kept.set.has(v)) return false;
    const lines = roleLines(v); // OpenLIT's `role: content` prompt, read message by message
    if (lines) return lines.some((m) => isProse(m.text) && !isKept(m.text, kept));
    // JSON text is looked into (its own text is rarely kept as written); other text is looked for.
    if (!/^\s*[[{"]/.test(v) || v.length > LOOK_INSIDE) return !isKept(v, kept);
    const inner = maybeJson(decodeJsonString(v));
    if (inner === v) return !isKept(v, kept);
    return hasUnkeptText(inner ?? null, kept);
  }
  if (Array.isArray(v)) return v.some((x) => hasUnkeptText(x, kept));
  if (v !== null && typeof v === 'object')
    return Object.keys(v).some((k) => !NOT_TEXT.test(k) && hasUnkeptText(v[k], kept));
  return false;
}

/**
 * The attributes (and event attributes, as `event NAME: KEY`) of a span that hold text no
 * reader took: words that are in none of the texts its content kept (`c`; without it, any text).
 */
export function unreadTextKeys(span: OtelSpan, c?: SpanContent): string[] {
  const list = c ? keptTexts(c) : [];
  const kept: Kept = { set: new Set(list), list };
  const unread = (k: string, v: AttrValue) => !NOT_TEXT.test(k) && isProse(v) && hasUnkeptText(v, kept);
  const keys: string[] = [];
  for (const k of Object.keys(span.attributes)) {
    // Records a memory span read are taken whole (their other fields are metadata): not parsed again.
    if (k === 'gen_ai.memory.records' && c?.memory) continue;
    if (unread(k, span.attributes[k])) keys.push(k);
  }
  for (const e of span.events) {
    if (e.name === 'exception') continue; // an error, shown as the op's comment
    for (const k of Object.keys(e.attributes))
      if (unread(k, e.attributes[k])) keys.push(`event ${e.name}: ${k}`);
  }
  return keys;
}

/** Counts names, most frequent first. */
export class NameCounter {
  private readonly counts = new Map<string, number>();
  add(name: string): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
  }
  list(): NamedCount[] {
    return [...this.counts]
      .map(([name, spans]) => ({ name, spans }))
      .sort((a, b) => b.spans - a.spans || (a.name < b.name ? -1 : 1));
  }
}

/** The parts of the import summary the warnings are made from. */
interface GapSummary {
  spans: number;
  variables: number;
  /** Attributes with text no reader took. */
  unreadText: NamedCount[];
  /** Spans without content that only held other spans, by kind (or name): not made ops. */
  notOps: NamedCount[];
}

const SHOWN = 10;

function listed(items: NamedCount[]): string {
  const shown = items
    .slice(0, SHOWN)
    .map((x) => `${JSON.stringify(x.name)} (${x.spans} span${x.spans === 1 ? '' : 's'})`);
  return shown.join(', ') + (items.length > SHOWN ? `, and ${items.length - SHOWN} more` : '');
}

/** The warnings of an import: text not read (none kept at all is said first), spans not made ops. */
export function importWarnings(s: GapSummary): { code: string; message: string }[] {
  const out: { code: string; message: string }[] = [];
  if (s.unreadText.length) {
    const none = s.variables === 0 ? 'no text was kept from this file; ' : '';
    out.push({
      code: 'unread-text',
      message: `${none}text in attributes the importer does not read (kept in no variable): ${listed(s.unreadText)}`,
    });
  }
  if (s.notOps.length) {
    const n = s.notOps.reduce((sum, x) => sum + x.spans, 0);
    out.push({
      code: 'spans-not-ops',
      message: `${n} of ${s.spans} spans became no op (no content; they only hold other spans): ${listed(s.notOps)}`,
    });
  }
  return out;
}
