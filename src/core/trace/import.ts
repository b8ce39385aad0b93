/**
 * Reads smartcomment / MemTraceBench JSON text into a validated document. Span formats
 * (OTLP/JSON and JSON Lines, ResourceSpans, SDK spans, Phoenix rows, Langfuse exports: `otel/`)
 * are detected and mapped to the same document first. Never throws on bad input.
 */

import { duplicateKeys } from './duplicate-keys.ts';
import { IssueCollector, type TraceIssue } from './issues.ts';
import { findJsonSyntaxError } from './json-syntax.ts';
import {
  detectSpanFormat,
  jsonLinesFormat,
  noFormatMessage,
  type OtelImportSummary,
  readJsonLines,
  readSpans,
  type SpanFile,
  spansToTrace,
  summaryText,
} from './otel/index.ts';
import type { OtelSpan } from './otel/span.ts';
import type { TraceDocument } from './types.ts';
import { stripBom } from './utf8.ts';
import { validateDocument } from './validate.ts';
import { shareVersionTexts } from './version-text.ts';

/**
 * A validated document with its warnings (and, for a span file, what it was mapped to), or the issues that
 * stopped the import.
 */
export type ImportResult =
  | { ok: true; doc: TraceDocument; issues: TraceIssue[]; summary?: ImportSummary }
  | { ok: false; issues: TraceIssue[]; summary?: ImportSummary };

/** What a span file was mapped to (absent for smartcomment files). */
export interface ImportSummary {
  /** One line for people, e.g. `OTLP/JSON: 1 span → 1 op, …; no cases …`. */
  text: string;
  otel: OtelImportSummary;
}

/** Options of `parseTraceText`: the file name every message names, and how many issues to keep. */
export interface ImportOptions {
  /** Name used in every message (a path or the dropped file's name). */
  file: string;
  /** How many issues to keep before only counting them. */
  maxIssues?: number;
}

/**
 * Reads trace text (a leading BOM dropped): smartcomment JSON, or a span format mapped to a trace first;
 * validated. Never throws on bad input: problems come back as issues naming the file and the place.
 */
export function parseTraceText(text: string, options: ImportOptions): ImportResult {
  const issues = new IssueCollector(options.file, options.maxIssues);
  let value: unknown;
  try {
    value = JSON.parse(stripBom(text));
  } catch (e) {
    const lines = jsonLinesFormat(stripBom(text));
    if (lines)
      return fromSpans({ format: lines, spans: readJsonLines(stripBom(text), lines, issues) }, issues);
    const syntax = findJsonSyntaxError(stripBom(text));
    if (syntax) {
      issues.add('error', 'json-syntax', `invalid JSON: ${syntax.message}`, {
        line: syntax.line,
        column: syntax.column,
      });
    } else {
      // The engine refused what our scanner accepts: too large or too deep.
      issues.error('json-parse', `JSON could not be parsed: ${e instanceof Error ? e.message : String(e)}`);
    }
    return { ok: false, issues: issues.finish() };
  }
  duplicates(stripBom(text), issues);
  shareVersionTexts(dataNodes(value));
  const parsed = { value };
  value = undefined;
  return checkParsedValue(parsed, issues);
}

/**
 * The checks after parsing, shared by the whole-text reader and the streaming one
 * (`parseTraceChunks`): a span format is mapped to a document, anything else must be
 * smartcomment, and the document is validated. The value comes in a box that a span file's
 * reading empties, so the parsed tree can go before the spans are mapped.
 */
export function checkParsedValue(parsed: { value: unknown }, issues: IssueCollector): ImportResult {
  let value = parsed.value;
  const format = detectSpanFormat(value);
  if (format) {
    const spans: OtelSpan[] = [];
    readSpans(value, format, '', issues, spans);
    value = undefined; // the spans hold what is needed; let the parsed tree go before mapping
    parsed.value = undefined;

    return fromSpans({ format, spans }, issues);
  }
  // Not a span format, and no "data" to read as smartcomment: name every format tried.
  const noFormat = noFormatMessage(value);
  if (noFormat) {
    issues.error('not-a-graph', noFormat);
    return { ok: false, issues: issues.finish() };
  }
  return validateParsed(value, issues);
}

/** `data.nodes` of a parsed smartcomment value, if it has them. */
function dataNodes(value: unknown): unknown {
  const data = typeof value === 'object' && value !== null ? (value as { data?: unknown }).data : undefined;
  return typeof data === 'object' && data !== null ? (data as { nodes?: unknown }).nodes : undefined;
}

/** Keys whose second, different value replaces what the file's records are: an error; other repeated keys warn. */
const RECORD_KEYS = new Set([
  'data',
  '$.graph_id',
  'data.nodes',
  'data.edges',
  'data.operations',
  'data.sessions',
  'data.annotations',
]);

/** Keys of the top level or of `data` given twice with different values (JSON.parse keeps the later silently). */
function duplicates(text: string, issues: IssueCollector) {
  for (const d of duplicateKeys(text)) {
    const key = d.path.replace(/^\$\./, '');
    const message = `"${key.split('.').at(-1)}" is given twice with different values (lines ${d.firstLine} and ${d.line}); JSON keeps only the later one`;
    if (RECORD_KEYS.has(d.path))
      issues.add(
        'error',
        'duplicate-key',
        `${message}, so the earlier ${key === 'data' ? 'graph' : 'records'} would be lost: keep one`,
        {
          path: d.path,
          line: d.line,
          column: 1,
        },
      );
    else issues.add('warning', 'duplicate-key', message, { path: d.path, line: d.line, column: 1 });
  }
}

function fromSpans(file: SpanFile, issues: IssueCollector): ImportResult {
  let mapped: ReturnType<typeof spansToTrace>;
  try {
    mapped = spansToTrace(file, issues);
  } catch (e) {
    issues.error('internal', `the spans could not be mapped: ${e instanceof Error ? e.message : String(e)}`);
    mapped = null;
  }
  if (!mapped) return { ok: false, issues: issues.finish() };
  const summary = { text: summaryText(mapped.summary), otel: mapped.summary };
  const r = validateParsed(mapped.doc, issues);
  return { ...r, summary };
}

/** Validates an already-parsed value (e.g. from a streaming parser). */
export function validateTraceValue(value: unknown, options: ImportOptions): ImportResult {
  return validateParsed(value, new IssueCollector(options.file, options.maxIssues));
}

function validateParsed(value: unknown, issues: IssueCollector): ImportResult {
  let ok: boolean;
  try {
    ok = validateDocument(value, issues);
  } catch (e) {
    // Defensive: validation is written not to throw; if it ever does, report it as a problem of this file.
    issues.error('internal', `validation failed unexpectedly: ${e instanceof Error ? e.message : String(e)}`);
    ok = false;
  }
  return ok
    ? { ok: true, doc: value as TraceDocument, issues: issues.finish() }
    : { ok: false, issues: issues.finish() };
}
