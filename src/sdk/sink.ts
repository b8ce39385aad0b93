/**
 * Where a tracer's records go. `MemorySink` keeps them for `document()`;
 * `StreamingSink` writes each record as it is made into one spool per record list
 * and assembles the final file on close — memory stays bounded on long runs, and the
 * bytes equal `JSON.stringify(document, null, 2)` of the same run.
 */
import type { Annotation, TraceDocument, TraceHeader } from '../core/trace/index.ts';

export type RecordList = 'nodes' | 'edges' | 'operations' | 'sessions' | 'annotations';
/** The order the toolkit writes `data`'s lists in. */
export const DATA_LISTS: readonly RecordList[] = ['nodes', 'edges', 'operations', 'sessions', 'annotations'];

export type { TraceHeader };

export interface GraphSink {
  add(list: RecordList, record: object): void;
  /** Called once, when the run ends. */
  close(header: TraceHeader): void | Promise<void>;
}

export class MemorySink implements GraphSink {
  readonly lists: Record<RecordList, object[]> = {
    nodes: [],
    edges: [],
    operations: [],
    sessions: [],
    annotations: [],
  };
  add(list: RecordList, record: object): void {
    this.lists[list].push(record);
  }
  close(): void {}
  /** The whole document; `annotations` only when there are any (as in the toolkit's files). */
  document(header: TraceHeader): TraceDocument {
    const l = this.lists;
    const data = {
      nodes: l.nodes,
      edges: l.edges,
      operations: l.operations,
      sessions: l.sessions,
      ...(l.annotations.length ? { annotations: l.annotations as Annotation[] } : {}),
    } as TraceDocument['data'];
    return { ...header, data };
  }
}

/** Append-only text storage for one record list (a temp file in Node, strings in a browser). */
export interface Spool {
  append(text: string): void;
  /** Hands the spooled content to `write` in order, in chunks. */
  drain(write: (chunk: string | Uint8Array) => void): void;
  dispose(): void;
}

export class MemorySpool implements Spool {
  private parts: string[] = [];
  append(text: string): void {
    this.parts.push(text);
  }
  drain(write: (chunk: string | Uint8Array) => void): void {
    for (const p of this.parts) write(p);
  }
  dispose(): void {
    this.parts = [];
  }
}

export interface StreamOutput {
  write(chunk: string | Uint8Array): void;
  close?(): void | Promise<void>;
}

const PLACEHOLDER = '__memtrace_data_placeholder__';

/** Indents every line of `json` (already pretty-printed at depth 0) by `pad`. */
function indent(json: string, pad: string): string {
  return pad + json.replace(/\n/g, `\n${pad}`);
}

export class StreamingSink implements GraphSink {
  private readonly spools = new Map<RecordList, Spool>();
  private readonly counts = new Map<RecordList, number>();
  constructor(
    private readonly output: StreamOutput,
    private readonly makeSpool: (list: RecordList) => Spool = () => new MemorySpool(),
  ) {}

  add(list: RecordList, record: object): void {
    let spool = this.spools.get(list);
    if (!spool) {
      spool = this.makeSpool(list);
      this.spools.set(list, spool);
    }
    const n = this.counts.get(list) ?? 0;
    spool.append((n ? ',\n' : '') + indent(JSON.stringify(record, null, 2), '      '));
    this.counts.set(list, n + 1);
  }

  async close(header: TraceHeader): Promise<void> {
    const text = JSON.stringify({ ...header, data: PLACEHOLDER }, null, 2);
    const at = text.lastIndexOf(`"${PLACEHOLDER}"`);
    const out = this.output;
    out.write(text.slice(0, at));
    out.write('{');
    const lists = DATA_LISTS.filter((l) => l !== 'annotations' || (this.counts.get(l) ?? 0) > 0);
    lists.forEach((list, i) => {
      const n = this.counts.get(list) ?? 0;
      out.write(`${i ? ',' : ''}\n    "${list}": [`);
      if (n) {
        out.write('\n');
        this.spools.get(list)?.drain((c) => out.write(c));
        out.write('\n    ]');
      } else out.write(']');
    });
    out.write('\n  }');
    out.write(text.slice(at + PLACEHOLDER.length + 2));
    for (const s of this.spools.values()) s.dispose();
    this.spools.clear();
    await out.close?.();
  }
}
