/** Text in, indexed graph (or the problems that stop it) out. */
import { type ImportOptions, parseTraceText, type TraceIssue } from '../trace/index.ts';
import { buildGraph, type TraceGraph } from './graph.ts';

/** A parsed and indexed trace with its warnings, or the issues that stopped the import. */
export type OpenResult =
  | { ok: true; graph: TraceGraph; issues: TraceIssue[] }
  | { ok: false; issues: TraceIssue[] };

/** Parses trace text and indexes it: `parseTraceText` then `buildGraph`. */
export function openTrace(text: string, options: ImportOptions): OpenResult {
  const r = parseTraceText(text, options);
  if (!r.ok) return r;
  return { ok: true, graph: buildGraph(r.doc), issues: r.issues };
}
