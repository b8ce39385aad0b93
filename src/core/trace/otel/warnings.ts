/**
 * What an import did not understand, said as warnings: text in attributes no reader knows (on
 * spans that became ops without content) and spans that became no op — by the names that let a
 * person find them in the file.
 */
import type { OtelSpan } from './span.ts';
import type { AttrValue } from './values.ts';

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

/**
 * The attributes (and event attributes, as `event NAME: KEY`) of a span that hold text in a
 * form no reader took. Only asked of spans whose content came out empty.
 */
export function unreadTextKeys(span: OtelSpan): string[] {
  const keys: string[] = [];
  for (const k of Object.keys(span.attributes))
    if (!NOT_TEXT.test(k) && isProse(span.attributes[k])) keys.push(k);
  for (const e of span.events)
    for (const k of Object.keys(e.attributes))
      if (!NOT_TEXT.test(k) && isProse(e.attributes[k])) keys.push(`event ${e.name}: ${k}`);
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
  /** Attributes with text no reader took, on spans that became ops without content. */
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
      message: `${none}text in attributes the importer does not read (their spans became ops without content): ${listed(s.unreadText)}`,
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
