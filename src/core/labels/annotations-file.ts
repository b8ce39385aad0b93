/**
 * Annotations files: how people share labels without a server. The shape (issue 14):
 * `{annotations: [{graph_id, query_id, final_op_id, final_error_type, reason, annotator,
 * created_at, label_source}]}`, each entry also carrying MemTraceBench's context fields
 * (`query`, `golden_answers`, `prediction`, `source_evidence_ids`) when known, so the list
 * is a MemTraceBench annotation list too. Graph files count as label files: their
 * `data.annotations` under the file's `graph_id`.
 */
import { en } from 'zod/locales';
import * as z from 'zod/mini';
import { findJsonSyntaxError, stripBom } from '../trace/index.light.ts';
import { contextOf } from './file-labels.ts';
import { FILE_SOURCE, type LabelRecord } from './record.ts';

/** One entry of an annotations file. */
export interface AnnotationEntry {
  graph_id: string;
  query_id: string;
  final_op_id: string | null;
  final_error_type: string;
  reason: string;
  annotator: string;
  created_at: string;
  label_source: string;
  query?: string;
  golden_answers?: string[] | string;
  prediction?: string;
  source_evidence_ids?: string[];
}

/** An annotations file: `{annotations: [...]}` (see the module comment). */
export interface AnnotationsFile {
  annotations: AnnotationEntry[];
}

/** Writes records as an annotations file (key order as in the issue; context fields after). */
export function toAnnotationsFile(records: readonly LabelRecord[]): AnnotationsFile {
  return {
    annotations: records.map((r) => ({
      graph_id: r.graphId,
      query_id: r.queryId,
      final_op_id: r.opId,
      final_error_type: r.errorType,
      reason: r.reason,
      annotator: r.annotator,
      created_at: r.createdAt,
      label_source: r.source,
      ...(r.context ?? {}),
    })),
  };
}

// zod's tree-shakable `mini` build: the page reads annotations files too, and full zod would
// sit in its main chunk (bench/bundle-size.ts). English messages, as full zod.
z.config(en());

const text = z.string().check(z.minLength(1, 'expected a non-empty string'));
const entrySchema = z.object({
  graph_id: text,
  query_id: text,
  final_error_type: text,
  final_op_id: z.optional(z.nullable(text)),
  reason: z.optional(z.string()),
  annotator: z.optional(z.string()),
  created_at: z.optional(z.string()),
  label_source: z.optional(z.string()),
});

/**
 * What `readLabelFile` read: the labels and which kind of file held them, or a one-line message naming the
 * file and the place.
 */
export type LabelFileResult =
  | { ok: true; kind: 'annotations' | 'graph'; labels: LabelRecord[] }
  | { ok: false; message: string };

/** `annotations[3].final_error_type` from a zod path. */
function placeOf(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (s, p) => (typeof p === 'number' ? `${s}[${p}]` : s ? `${s}.${String(p)}` : String(p)),
    '',
  );
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * Reads an annotations file or a graph file's annotations. Never throws: a bad file gives one
 * line naming the file and the place (`file:line:column` for JSON syntax, `file: annotations[2].query_id`
 * for a wrong entry); one bad entry rejects the file, so nothing is half-imported.
 */
export function readLabelFile(raw: string, file: string): LabelFileResult {
  const textIn = stripBom(raw);
  let value: unknown;
  try {
    value = JSON.parse(textIn);
  } catch (e) {
    const s = findJsonSyntaxError(textIn);
    return {
      ok: false,
      message: s
        ? `${file}:${s.line}:${s.column}: invalid JSON: ${s.message}`
        : `${file}: JSON could not be parsed: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
  if (!isObject(value))
    return { ok: false, message: `${file}: expected an object with an "annotations" list` };
  let list: unknown;
  let prefix: string;
  let kind: 'annotations' | 'graph';
  let graphId: string | undefined;
  if ('annotations' in value) {
    kind = 'annotations';
    list = value.annotations;
    prefix = 'annotations';
  } else if (isObject(value.data)) {
    kind = 'graph';
    list = value.data.annotations ?? [];
    prefix = 'data.annotations';
    if (typeof value.graph_id !== 'string' || value.graph_id === '')
      return { ok: false, message: `${file}: graph_id: expected a non-empty string` };
    graphId = value.graph_id;
  } else
    return {
      ok: false,
      message: `${file}: neither an annotations file ({"annotations": [...]}) nor a graph file (no "data")`,
    };
  if (!Array.isArray(list)) return { ok: false, message: `${file}: ${prefix}: expected a list` };
  const labels: LabelRecord[] = [];
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    const withGraph =
      graphId !== undefined && isObject(item) && item.graph_id === undefined
        ? { ...item, graph_id: graphId }
        : item;
    const parsed = entrySchema.safeParse(withGraph);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const place = placeOf([i, ...issue.path]);
      return {
        ok: false,
        message: `${file}: ${prefix}${place.startsWith('[') ? '' : '.'}${place}: ${issue.message}`,
      };
    }
    const e = parsed.data;
    const context = contextOf(item as Record<string, unknown>);
    labels.push({
      graphId: e.graph_id,
      queryId: e.query_id,
      errorType: e.final_error_type,
      opId: e.final_op_id ?? null,
      reason: e.reason ?? '',
      source: e.label_source || FILE_SOURCE,
      annotator: e.annotator ?? '',
      createdAt: e.created_at ?? '',
      origin: kind === 'graph' ? 'file' : 'imported',
      ...(context ? { context } : {}),
    });
  }
  return { ok: true, kind, labels };
}
