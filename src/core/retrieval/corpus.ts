/**
 * What gets indexed: documents taken from a trace graph, and the content key that
 * identifies an index of them. Documents are variables; their text is the value's
 * human text (`valueText`: a quoted Python/JSON string is unquoted).
 */
import { isSentinelVar, type TraceGraph } from '../graph/index.ts';
import { ContentHasher } from '../hash/index.ts';
import { isConversationMessage, valueText } from '../trace/index.ts';

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
  if (scope === 'messages') {
    for (let v = 0; v < g.varId.length; v++) if (isConversationMessage(g.varCategory[v])) vars.push(v);
  } else for (let v = 0; v < g.varId.length; v++) if (!isSentinelVar(g, v)) vars.push(v);
  return {
    scope,
    ids: vars.map((v) => g.varId[v]),
    texts: vars.map((v) => valueText(g.varValue[v])),
    vars: Int32Array.from(vars),
  };
}

/** Version of the index layout and the tokenizer/BM25/fallback definitions: bump to invalidate old indexes. */
export const INDEX_FORMAT = 'memtrace-retrieval-v2';

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
