/**
 * `--qa FILE` of `cases`, `attribute` and `bench`: the questions and golden answers of an
 * evaluation set, joined to each trace as judge ops (core/qa) before its graph is built. The
 * verdict is the row's `correct` when given, else the offline judge's rule (containment,
 * token F1 or long-answer support: systems/judge-rules.ts), named in each case's `answer_rule`.
 */
import type { TraceCase } from '../core/cases/index.ts';
import { opMetadata, type TraceGraph } from '../core/graph/index.ts';
import { joinQa, parseQaFile, type QaRow } from '../core/qa/index.ts';
import { oneLine } from '../core/text/index.ts';
import { QA_ANSWER_RULE } from '../systems/index.ts';
import { flags } from './command.ts';
import { type PrepareDoc, readText } from './files.ts';
import { CliError, type CliIO } from './io.ts';

/** `--qa FILE`. */
export const QA_FLAG = flags({
  qa: {
    type: 'string',
    value: 'FILE',
    help: 'questions and golden answers beside the trace (JSON list or JSONL of {question, answer}, LoCoMo, LongMemEval): each is judged on the LLM call whose input holds it',
  },
});

/** The rows of a QA file; a bad file fails the command with one line naming the file and place. */
export async function readQaRows(path: string): Promise<QaRow[]> {
  const r = parseQaFile(await readText(path), path);
  if (!r.ok) throw new CliError(oneLine(r.message));
  return r.rows;
}

/**
 * `--qa`'s document step (undefined without the flag): joins the rows to each trace and says
 * on stderr how many questions no LLM call of it held (`quiet`: not again, on a second pass).
 */
export async function qaPrepare(
  path: string | undefined,
  io: CliIO,
  options: { quiet?: boolean } = {},
): Promise<PrepareDoc | undefined> {
  if (path === undefined) return undefined;
  const rows = await readQaRows(path);
  return (doc, file) => {
    const j = joinQa(doc, rows, QA_ANSWER_RULE);
    if (j.unmatched.length && !options.quiet)
      io.stderr.write(
        `${file}: ${j.unmatched.length} of ${rows.length} question(s) of ${path} are asked by no LLM call (in none's input, or only as history before a later question) (${j.unmatched.slice(0, 3).join(', ')}${j.unmatched.length > 3 ? ', …' : ''}): with the file's prediction a case without a path, else left out\n`,
      );
    return j.doc;
  };
}

/** The `answer_rule` a `--qa` judge op carries (`trace`: a trace's judge a row joined; null: the trace's own judge alone). */
export function answerRuleOf(g: TraceGraph, c: TraceCase): string | null {
  const op = c.judgeOpId === null ? undefined : g.opIndex.get(c.judgeOpId);
  const rule = op === undefined ? undefined : opMetadata(g, op).answer_rule;
  return typeof rule === 'string' ? rule : null;
}
