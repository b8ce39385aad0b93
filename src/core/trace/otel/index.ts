/**
 * Traces people already have: OTLP/JSON (requests, JSON Lines of them as the Collector's file
 * exporter writes, bare ResourceSpans, oteltest's wrapped requests, SDK span objects) with the OpenTelemetry GenAI and memory
 * conventions, OpenInference (Phoenix rows too), Traceloop / OpenLLMetry, OpenLIT, Vercel AI SDK
 * and Langfuse exports → a smartcomment document, through the same import path as smartcomment
 * files. What could not be read is said (warnings), never dropped silently.
 */
import type { IssueCollector } from '../issues.ts';
import { deepPlace, TOO_DEEP_MESSAGE } from '../nesting.ts';
import type { TraceDocument } from '../types.ts';
import { emptySummary, type OtelImportSummary, spansToDocument } from './build.ts';
import { hasExactRecords, restoreExact } from './exact.ts';
import { readLangfuseExport } from './langfuse.ts';
import { readOtlpRequest, readResourceSpans, readWrappedRequests } from './otlp.ts';
import { readPhoenixRow } from './phoenix.ts';
import { readSdkSpan } from './sdk-spans.ts';
import type { OtelSpan, SpanFile, SpanFormat } from './span.ts';
import { importWarnings } from './warnings.ts';

export type { OtelImportSummary } from './build.ts';
export { detectSpanFormat, jsonLinesFormat, noFormatMessage } from './detect.ts';
export type { SpanFile } from './span.ts';

/** Reads each item of a value that may be one item or a list of them. */
function eachItem(
  value: unknown,
  at: (p: string) => string,
  one: string,
  read: (item: unknown, place: string) => OtelSpan | null | undefined,
  out: OtelSpan[],
): void {
  const items = Array.isArray(value) ? value : [value];
  items.forEach((item, i) => {
    const span = read(item, at(Array.isArray(value) ? `[${i}]` : one));
    if (span) out.push(span);
  });
}

/**
 * Reads the spans of one parsed value (`prefix` names the line of a JSON Lines file). A value
 * nested deeper than the importers' limit is an error naming the place, and is not read.
 */
export function readSpans(
  value: unknown,
  format: SpanFormat,
  prefix: string,
  issues: IssueCollector,
  out: OtelSpan[],
): void {
  const at = (p: string) => (prefix ? (p ? `${prefix}: ${p}` : prefix) : p);
  const deep = deepPlace(value);
  if (deep !== null) {
    issues.error('too-deep', `the value ${TOO_DEEP_MESSAGE}`, at(deep.replace(/^\./, '')) || undefined);
    return;
  }
  if (format === 'otlp-json' || format === 'otlp-jsonl')
    eachItem(value, at, '', (v, p) => void readOtlpRequest(v, p, issues, out), out);
  else if (format === 'otlp-resource-spans')
    eachItem(value, at, '', (v, p) => void readResourceSpans(v, p || 'resourceSpans', issues, out), out);
  else if (format === 'oteltest') readWrappedRequests(value, prefix, issues, out);
  else if (format === 'langfuse') readLangfuseExport(value, prefix, issues, out);
  else if (format === 'sdk-spans') eachItem(value, at, 'span', (v, p) => readSdkSpan(v, p, issues), out);
  else eachItem(value, at, 'row', (v, p) => readPhoenixRow(v, p, issues), out);
}

/**
 * The spans of a JSON Lines file, each line's problems named by its line number. A last line
 * cut short (no line break after it: a file still being written, as a receiver appends) is a
 * warning, so the lines before it still load.
 */
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
      const cut = end === text.length;
      issues.add(
        cut ? 'warning' : 'error',
        cut ? 'jsonl-incomplete-line' : 'json-syntax',
        cut
          ? 'the last line is incomplete (no line break after it: a file still being written?); skipped'
          : `invalid JSON on this line: ${(e as Error).message}`,
        { line, column: 1 },
      );
      continue;
    }
    readSpans(v, format, `line ${line}`, issues, out);
  }
  return out;
}

/**
 * Spans → a document: the exact records when the file carries them (`memtrace export
 * --format otlp`), else the mapping with inferred dataflow, whose gaps (text not read, spans
 * not made ops) become warnings. Null (with an error issue) when there is nothing to load.
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
    // `"data": {}` round-trips too: lists it did not have count as empty (validation says so).
    const count = (v: unknown) => (Array.isArray(v) ? v.length : 0);
    const d = doc.data;
    return {
      doc,
      summary: {
        ...emptySummary(file, 'memtrace'),
        operations: count(d.operations),
        variables: count(d.nodes),
        edges: count(d.edges),
      },
    };
  }
  const mapped = spansToDocument(file);
  for (const w of importWarnings(mapped.summary)) issues.warn(w.code, w.message);
  return mapped;
}

const FORMAT_NAME: Record<SpanFormat, string> = {
  'otlp-json': 'OTLP/JSON',
  'otlp-jsonl': 'OTLP/JSON Lines',
  'otlp-resource-spans': 'OTLP ResourceSpans',
  oteltest: 'oteltest capture of OTLP requests',
  'sdk-spans': 'OpenTelemetry SDK spans',
  phoenix: 'Phoenix span rows',
  langfuse: 'Langfuse trace export',
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** One line for people: what the file was and what became of its spans. */
export function summaryText(s: OtelImportSummary): string {
  if (s.mapping === 'memtrace')
    return `${FORMAT_NAME[s.format]} written by memtrace: ${s.spans} spans → ${s.operations} ops, ${s.variables} variables, ${s.edges} edges (exact records)`;
  const parts = [
    `${FORMAT_NAME[s.format]}: ${plural(s.spans, 'span')} → ${plural(s.operations, 'op')}, ${s.variables} variables, ${s.edges} edges (${s.inferredEdges} inferred)`,
    s.cases
      ? `${s.cases} judged question${s.cases === 1 ? '' : 's'}`
      : 'no cases (no judge span with a verdict and a golden answer)',
  ];
  if (s.withoutContent)
    parts.push(`${plural(s.withoutContent, 'span')} without recorded content (content capture off?)`);
  if (s.unknownKind)
    parts.push(`${plural(s.unknownKind, 'span')} of no GenAI / OpenInference / Langfuse kind`);
  if (s.containers) parts.push(`${plural(s.containers, 'container span')} (no content) not made ops`);
  if (s.evaluationsWithoutGolden)
    parts.push(
      `${s.evaluationsWithoutGolden} evaluation${s.evaluationsWithoutGolden === 1 ? '' : 's'} without a golden answer or a pass/fail verdict (ops of their own with their comments, not cases)`,
    );
  return parts.join('; ');
}
