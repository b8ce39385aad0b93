/**
 * What gets indexed: documents taken from a trace graph, and the content key that
 * identifies an index of them. Documents are variables; their text is the value's
 * human text (`valueText`: a quoted Python/JSON string is unquoted).
 */
import { isSentinelVar, type TraceGraph, varsWithCategory } from '../graph/index.ts';
import { valueText } from '../trace/index.ts';

/** `messages`: variables of category `message` (the paper's start-point documents); `all`: every variable. */
export type DocScope = 'messages' | 'all';

/** The documents of one index: their ids, texts and variable indices, and the scope they were taken from. */
export interface Corpus {
  scope: DocScope;
  /** full_node_id of each document. */
  ids: string[];
  texts: string[];
  /** Variable index of each document in the graph. */
  vars: Int32Array;
}

/**
 * The documents of a graph for a scope: message variables, or every variable but the sentinels, in file
 * order.
 */
export function corpusFromGraph(g: TraceGraph, scope: DocScope): Corpus {
  const vars: number[] = [];
  if (scope === 'messages') vars.push(...varsWithCategory(g, 'message'));
  else for (let v = 0; v < g.varId.length; v++) if (!isSentinelVar(g, v)) vars.push(v);
  return {
    scope,
    ids: vars.map((v) => g.varId[v]),
    texts: vars.map((v) => valueText(g.varValue[v])),
    vars: Int32Array.from(vars),
  };
}

/** Version of the index layout and the tokenizer/BM25/fallback definitions: bump to invalidate old indexes. */
export const INDEX_FORMAT = 'memtrace-retrieval-v1';

/**
 * Two 32-bit lanes per string (cyrb53-style mixing), chained over the sequence —
 * a fast, non-cryptographic content fingerprint (~100 MB/s in V8); 106 bits in all.
 */
export class ContentHasher {
  private h1 = 0xdeadbeef;
  private h2 = 0x41c6ce57;
  private h3 = 0x9e3779b1;
  private h4 = 0x85ebca77;

  update(s: string): this {
    let { h1, h2, h3, h4 } = this;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
      h3 = Math.imul(h3 ^ c, 2246822507);
      h4 = Math.imul(h4 ^ c, 3266489909);
    }
    // Length-delimited: "ab"+"c" differs from "a"+"bc".
    h1 = Math.imul(h1 ^ s.length, 2654435761) ^ (h2 >>> 13);
    h2 = Math.imul(h2 ^ 0x1f, 1597334677) ^ (h1 >>> 16);
    h3 = Math.imul(h3 ^ s.length, 2246822507) ^ (h4 >>> 13);
    h4 = Math.imul(h4 ^ 0x2f, 3266489909) ^ (h3 >>> 16);
    Object.assign(this, { h1, h2, h3, h4 });
    return this;
  }

  digest(): string {
    const fin = (a: number, b: number) => {
      let x = Math.imul(a ^ (a >>> 16), 2246822507) ^ Math.imul(b ^ (b >>> 13), 3266489909);
      x = Math.imul(x ^ (x >>> 16), 2246822507) ^ Math.imul(b ^ (b >>> 13), 3266489909);
      return (x >>> 0).toString(16).padStart(8, '0');
    };
    const { h1, h2, h3, h4 } = this;
    return fin(h1, h2) + fin(h2, h1) + fin(h3, h4) + fin(h4, h3);
  }
}

/**
 * The key an index is stored under and checked against: the format, the scope, the
 * embedder id (null = BM25 only) and every document id and text. Any change to the
 * indexed documents or the model gives another key, so the stale index is rebuilt.
 */
export function indexKey(corpus: Pick<Corpus, 'scope' | 'ids' | 'texts'>, modelId: string | null): string {
  const h = new ContentHasher();
  h.update(INDEX_FORMAT)
    .update(corpus.scope)
    .update(modelId ?? '')
    .update(String(corpus.ids.length));
  for (let i = 0; i < corpus.ids.length; i++) h.update(corpus.ids[i]).update(corpus.texts[i]);
  return `${INDEX_FORMAT}:${h.digest()}`;
}
