/**
 * Traces people already have: OTLP/JSON (files and JSON Lines) with the OpenTelemetry GenAI
 * and memory conventions, OpenInference (Phoenix rows too) and Langfuse exports → a
 * smartcomment document, through the same import path as smartcomment files.
 */
import type { IssueCollector } from '../issues.ts';
import type { TraceDocument } from '../types.ts';
import { emptySummary, type OtelImportSummary, spansToDocument } from './build.ts';
import { hasExactRecords, restoreExact } from './exact.ts';
import { isLangfuseTrace, readLangfuseTrace } from './langfuse.ts';
import { isOtlpRequest, readOtlpRequest } from './otlp.ts';
import { isPhoenixRow, readPhoenixRow } from './phoenix.ts';
import type { OtelSpan, SpanFile, SpanFormat } from './span.ts';

export type { OtelImportSummary } from './build.ts';
export { spanContent } from './content.ts';
export * from './emit.ts';
export type { OtelSpan, SpanFile, SpanFormat } from './span.ts';
export { decodeAnyValue, normalizeId, normalizeTime } from './values.ts';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Which span format a parsed JSON value is in, or null (then it is read as smartcomment). */
export function detectSpanFormat(value: unknown): SpanFormat | null {
  if (isOtlpRequest(value)) return 'otlp-json';
  if (isLangfuseTrace(value)) return 'langfuse';
  if (isObject(value) && Array.isArray(value.data) && value.data.length && value.data.every(isLangfuseTrace))
    return 'langfuse';
  if (Array.isArray(value) && value.length) {
    if (value.every(isOtlpRequest)) return 'otlp-json';
    if (value.every(isLangfuseTrace)) return 'langfuse';
    if (isPhoenixRow(value[0])) return 'phoenix';
  }
  return null;
}

/** Reads the spans of one parsed value (`prefix` names the line of a JSON Lines file). */
export function readSpans(
  value: unknown,
  format: SpanFormat,
  prefix: string,
  issues: IssueCollector,
  out: OtelSpan[],
): void {
  const at = (p: string) => (prefix ? `${prefix}: ${p}` : p);
  if (format === 'otlp-json' || format === 'otlp-jsonl') {
    if (!Array.isArray(value)) readOtlpRequest(value, prefix, issues, out);
    else for (let i = 0; i < value.length; i++) readOtlpRequest(value[i], at(`[${i}]`), issues, out);
  } else if (format === 'langfuse') {
    const wrapped = isObject(value) && Array.isArray(value.data);
    const traces = Array.isArray(value) ? value : wrapped ? (value.data as unknown[]) : [value];
    const one = !Array.isArray(value) && !wrapped;
    for (let i = 0; i < traces.length; i++)
      readLangfuseTrace(traces[i], at(one ? 'trace' : `${wrapped ? 'data' : ''}[${i}]`), issues, out);
  } else {
    const rows = Array.isArray(value) ? value : [value];
    rows.forEach((r, i) => {
      const s = readPhoenixRow(r, at(Array.isArray(value) ? `[${i}]` : 'row'), issues);
      if (s) out.push(s);
    });
  }
}

/** Looks like JSON Lines: the first non-empty line is a whole JSON object of a span format. */
export function jsonLinesFormat(text: string): SpanFormat | null {
  const end = text.indexOf('\n');
  if (end < 0) return null;
  const first = text.slice(0, end).trim();
  if (!first.startsWith('{')) return null;
  try {
    const v = JSON.parse(first);
    if (isOtlpRequest(v)) return 'otlp-jsonl';
    if (isPhoenixRow(v)) return 'phoenix';
    if (isLangfuseTrace(v)) return 'langfuse';
  } catch {
    return null;
  }
  return null;
}

/** The spans of a JSON Lines file, each line's problems named by its line number. */
export function readJsonLines(text: string, format: SpanFormat, issues: IssueCollector): OtelSpan[] {
  const out: OtelSpan[] = [];
  let line = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    line++;
    const raw = text.slice(start, end).trim();
    start = end + 1;
    if (!raw) continue;
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch (e) {
      issues.add('error', 'json-syntax', `invalid JSON on this line: ${(e as Error).message}`, {
        line,
        column: 1,
      });
      continue;
    }
    readSpans(v, format, `line ${line}`, issues, out);
  }
  return out;
}

/**
 * Spans → a document: the exact records when the file carries them (`memtrace export
 * --format otlp`), else the mapping with inferred dataflow. Null (with an error issue) when
 * there is nothing to load.
 */
export function spansToTrace(
  file: SpanFile,
  issues: IssueCollector,
): { doc: TraceDocument; summary: OtelImportSummary } | null {
  if (!file.spans.length) {
    if (!issues.hasErrors) issues.error('no-spans', 'no spans found in the file');
    return null;
  }
  if (issues.hasErrors) return null;
  if (hasExactRecords(file.spans)) {
    const doc = restoreExact(file.spans, issues);
    if (!doc) return null;
    const d = doc.data;
    return {
      doc,
      summary: {
        ...emptySummary(file, 'memtrace'),
        operations: d.operations.length,
        variables: d.nodes.length,
        edges: d.edges.length,
      },
    };
  }
  return spansToDocument(file);
}

const FORMAT_NAME: Record<SpanFormat, string> = {
  'otlp-json': 'OTLP/JSON',
  'otlp-jsonl': 'OTLP/JSON Lines',
  phoenix: 'Phoenix span rows',
  langfuse: 'Langfuse trace export',
};

/** One line for people: what the file was and what became of its spans. */
export function summaryText(s: OtelImportSummary): string {
  if (s.mapping === 'memtrace')
    return `${FORMAT_NAME[s.format]} written by memtrace: ${s.spans} spans → ${s.operations} ops, ${s.variables} variables, ${s.edges} edges (exact records)`;
  const parts = [
    `${FORMAT_NAME[s.format]}: ${s.spans} span${s.spans === 1 ? '' : 's'} → ${s.operations} op${s.operations === 1 ? '' : 's'}, ${s.variables} variables, ${s.edges} edges (${s.inferredEdges} inferred)`,
    s.cases
      ? `${s.cases} judged question${s.cases === 1 ? '' : 's'}`
      : 'no cases (no judge span with a verdict and a golden answer)',
  ];
  if (s.withoutContent)
    parts.push(
      `${s.withoutContent} span${s.withoutContent === 1 ? '' : 's'} without recorded content (content capture off?)`,
    );
  if (s.unknownKind)
    parts.push(
      `${s.unknownKind} span${s.unknownKind === 1 ? '' : 's'} of no GenAI / OpenInference / Langfuse kind`,
    );
  if (s.containers)
    parts.push(`${s.containers} container span${s.containers === 1 ? '' : 's'} (no content) not made ops`);
  if (s.evaluationsWithoutGolden)
    parts.push(
      `${s.evaluationsWithoutGolden} evaluation${s.evaluationsWithoutGolden === 1 ? '' : 's'} without a golden answer or verdict`,
    );
  return parts.join('; ');
}
