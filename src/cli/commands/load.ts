/** Opening one trace for a command that needs a graph: fails with the file's problems. */
import type { TraceGraph } from '../../core/graph/index.ts';
import type { TraceIssue } from '../../core/trace/index.ts';
import { openTraceFile, type PrepareDoc, problemLine } from '../files.ts';
import { CliError, type CliIO } from '../io.ts';

/** A trace's graph and the warnings it loaded with (a file that does not load fails the command). */
export async function openGraph(
  file: string,
  io: CliIO,
  prepare?: PrepareDoc,
): Promise<{ graph: TraceGraph; warnings: TraceIssue[] }> {
  const r = await openTraceFile(file, prepare);
  if (!r.ok) throw new CliError(problemLine(file, r.issues));
  const warnings = r.issues.length;
  if (warnings > 0)
    io.stderr.write(`${file}: loaded with ${warnings} warning(s); run memtrace validate to see them\n`);
  return { graph: r.graph, warnings: r.issues };
}

/** A trace's graph (`prepare`: see `PrepareDoc`); a file that does not load fails the command. */
export async function loadGraph(file: string, io: CliIO, prepare?: PrepareDoc): Promise<TraceGraph> {
  return (await openGraph(file, io, prepare)).graph;
}
