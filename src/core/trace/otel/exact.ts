/** Restores a document from the `memtrace.*` attributes `documentToSpans({exact: true})` writes. */
import type { IssueCollector } from '../issues.ts';
import type { TraceDocument } from '../types.ts';
import { MEMTRACE_ATTR } from './emit.ts';
import type { OtelSpan } from './span.ts';

/** True when the spans carry the workbench's own records. */
export function hasExactRecords(spans: OtelSpan[]): boolean {
  return spans.some((s) => typeof s.attributes[MEMTRACE_ATTR.graph] === 'string');
}

type Indexed = [number, unknown];

export function restoreExact(spans: OtelSpan[], issues: IssueCollector): TraceDocument | null {
  // A Map: the names of a graph's lists come from the file ("constructor" is a name like another).
  const lists = new Map<string, Indexed[]>([
    ['nodes', []],
    ['edges', []],
    ['operations', []],
    ['sessions', []],
  ]);
  const list = (name: string) => lists.get(name) as Indexed[];
  type Graph = { header: Record<string, unknown>; lists: string[]; extra: Record<string, unknown> };
  let graph: Graph | null = null;
  let annotations: unknown[] | undefined;
  const read = (span: OtelSpan, attr: string): unknown => {
    const v = span.attributes[attr];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') {
      issues.error('memtrace-attr', `${attr} is not a JSON string`, `${span.place}.attributes["${attr}"]`);
      return undefined;
    }
    try {
      return JSON.parse(v);
    } catch (e) {
      issues.error(
        'memtrace-attr',
        `${attr} is not valid JSON (${(e as Error).message})`,
        `${span.place}.attributes["${attr}"]`,
      );
      return undefined;
    }
  };
  const pairs = (span: OtelSpan, attr: string, listName: string) => {
    const v = read(span, attr);
    if (v === undefined) return;
    if (!Array.isArray(v) || !v.every((p) => Array.isArray(p) && p.length === 2 && Number.isInteger(p[0]))) {
      issues.error(
        'memtrace-attr',
        `${attr} is not a list of [index, record] pairs`,
        `${span.place}.attributes["${attr}"]`,
      );
      return;
    }
    for (const pair of v as Indexed[]) list(listName).push(pair);
  };
  for (const span of spans) {
    const g = read(span, MEMTRACE_ATTR.graph) as Graph | null | undefined;
    if (g !== undefined) {
      if (!g || typeof g !== 'object' || typeof g.header !== 'object' || !Array.isArray(g.lists)) {
        issues.error(
          'memtrace-attr',
          `${MEMTRACE_ATTR.graph} lacks header and lists`,
          `${span.place}.attributes["${MEMTRACE_ATTR.graph}"]`,
        );
        continue;
      }
      graph = g;
      const extra = g as unknown as { nodes?: Indexed[]; edges?: Indexed[] };
      if (Array.isArray(extra.nodes)) for (const pair of extra.nodes) list('nodes').push(pair);
      if (Array.isArray(extra.edges)) for (const pair of extra.edges) list('edges').push(pair);
      const a = read(span, MEMTRACE_ATTR.annotations);
      if (Array.isArray(a)) annotations = a;
    }
    const session = read(span, MEMTRACE_ATTR.session);
    if (session !== undefined) list('sessions').push(session as Indexed);
    const op = read(span, MEMTRACE_ATTR.op);
    if (op !== undefined) list('operations').push(op as Indexed);
    pairs(span, MEMTRACE_ATTR.edges, 'edges');
    pairs(span, MEMTRACE_ATTR.nodes, 'nodes');
  }
  if (!graph || issues.hasErrors) return null;
  // Null prototype: a list named "__proto__" is data, not the object's prototype.
  const data: Record<string, unknown> = Object.create(null);
  const extra = graph.extra;
  for (const name of graph.lists) {
    const restored = lists.get(name);
    if (restored) data[name] = restored.sort((a, b) => a[0] - b[0]).map((p) => p[1]);
    else if (name === 'annotations') data[name] = annotations ?? [];
    else data[name] = extra && Object.hasOwn(extra, name) ? extra[name] : undefined;
  }
  return { ...graph.header, data } as TraceDocument;
}
