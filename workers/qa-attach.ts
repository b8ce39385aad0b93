/**
 * QA files dropped or picked beside traces in the app: recognised by their shape (core/qa
 * `looksLikeQaFile`), read by core/qa's reader and joined to each trace as `memtrace … --qa`
 * joins them (rows without a verdict judged by the same offline answer rule). The file is kept
 * with every trace it joined (db `attachQa`), so the engine joins it again whenever it reopens
 * the trace: the stored original stays the file as dropped.
 */
import { listCases } from '../src/core/cases/index.ts';
import { buildGraph, type TraceGraph } from '../src/core/graph/index.ts';
import { joinQa, parseQaFile, type QaRow } from '../src/core/qa/index.ts';
import { traceStats } from '../src/core/stats/index.ts';
import { parseTraceText, type TraceDocument } from '../src/core/trace/index.ts';
import { attachQa, getStored } from '../src/db/repo.ts';
import type { MemtraceDb, QaAttachment } from '../src/db/schema.ts';
import { QA_ANSWER_RULE } from '../src/systems/judge-rules.ts';
import type { FileResult, ImportInput } from './api.ts';
import { caseRowsOf } from './case-rows.ts';

/** A stored trace's document with its QA file's questions joined (unchanged without one, or when it no longer reads). */
export function withQa(doc: TraceDocument, qa: QaAttachment | undefined): TraceDocument {
  if (!qa) return doc;
  const r = parseQaFile(qa.text, qa.file);
  return r.ok ? joinQa(doc, r.rows, QA_ANSWER_RULE).doc : doc;
}

/** What one trace got from the QA file. */
interface Joined {
  file: string;
  joined: number;
  failed: number;
}

/**
 * Joins a QA file's rows to the traces `targets` names (null: every stored trace) and keeps it
 * with each trace that holds at least one of its questions in an LLM call's input; `adopt`
 * takes each joined graph (the engine's open trace). A bad file is `invalid`, with one issue
 * naming its place.
 */
export async function joinQaFile(
  db: MemtraceDb,
  input: ImportInput,
  text: string,
  targets: string[] | null,
  adopt: (traceId: string, graph: TraceGraph) => void,
): Promise<FileResult> {
  const file = input.path || input.name;
  const base = { name: input.name, path: input.path, issues: [], errorCount: 0, warningCount: 0 };
  const parsed = parseQaFile(text, file);
  if (!parsed.ok) {
    const message = parsed.message.startsWith(`${file}: `)
      ? parsed.message.slice(file.length + 2)
      : parsed.message;
    return {
      ...base,
      status: 'invalid',
      issues: [{ severity: 'error', code: 'qa-file', message, file }],
      errorCount: 1,
    };
  }
  const ids = targets ?? (await db.traces.toCollection().primaryKeys());
  const joined: (Joined & { traceId: string })[] = [];
  for (const id of ids) {
    const r = await joinOne(db, id, parsed.rows, { file, text }, adopt);
    if (r) joined.push({ ...r, traceId: id });
  }
  const n = parsed.rows.length;
  const message = joined.length
    ? `${n} question(s) of a QA file: ${joined.map((j) => `${j.joined} joined to ${j.file} (${j.failed} failed)`).join('; ')}`
    : `${n} question(s) of a QA file, none in an LLM call's input of ${targets ? 'the traces imported with it' : 'a stored trace'}: nothing joined`;
  return { ...base, status: 'questions', message, ...(joined[0] ? { traceId: joined[0].traceId } : {}) };
}

/** Joins a replaced trace's kept QA file to its new file (the import stored it without the questions). */
export async function rejoinQa(
  db: MemtraceDb,
  traceId: string,
  qa: QaAttachment,
  adopt: (traceId: string, graph: TraceGraph) => void,
): Promise<void> {
  const parsed = parseQaFile(qa.text, qa.file);
  if (parsed.ok) await joinOne(db, traceId, parsed.rows, qa, adopt);
}

/** Joins the rows to one stored trace and stores the result; null when none of its LLM calls holds a question. */
async function joinOne(
  db: MemtraceDb,
  traceId: string,
  rows: QaRow[],
  qa: QaAttachment,
  adopt: (traceId: string, graph: TraceGraph) => void,
): Promise<Joined | null> {
  const [meta, stored] = await Promise.all([db.traces.get(traceId), getStored(db, traceId)]);
  if (!meta || !stored) return null;
  const parsed = parseTraceText(await stored.blob.text(), { file: meta.path || meta.file });
  if (!parsed.ok) return null;
  const j = joinQa(parsed.doc, rows, QA_ANSWER_RULE);
  if (j.joined === 0) return null;
  const graph = buildGraph(j.doc);
  const cases = caseRowsOf(traceId, meta.system, listCases(graph));
  await attachQa(db, traceId, qa, cases, { stats: traceStats(graph) });
  adopt(traceId, graph);
  return { file: meta.file, joined: j.joined, failed: cases.filter((c) => c.failed).length };
}
