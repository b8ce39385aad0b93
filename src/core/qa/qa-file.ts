/**
 * QA files given beside a trace: a JSON list or JSON Lines of `{question, answer}` rows
 * (optional `prediction`, `correct`, `question_id` / `id`), LoCoMo's layout (`qa: [{question,
 * answer, evidence, category}]` inside each conversation, whose turns give the evidence texts)
 * and LongMemEval's (`question_id`, `question`, `answer`). A bad file is one error naming the
 * place: the line of a JSON Lines file, the index of a list.
 */

import { MAX_NESTING, nestsDeeperThan, stripBom } from '../trace/index.ts';

/** One question of a QA file. */
export interface QaRow {
  /** The row's own id (`question_id`, `id`, `qa_id`), when it has one. */
  id: string | null;
  question: string;
  /** Golden answers (LongMemEval's numbers as text). */
  answers: string[];
  /** A prediction the file gives (the case's when no LLM call of the trace holds the question). */
  prediction: string | null;
  /** The verdict the file gives, or null (then the answer rule decides). */
  correct: boolean | null;
  /** Texts of the evidence (LoCoMo: the turns its `evidence` ids name). */
  evidenceTexts: string[];
  /** Where the row is, for messages: `line 3`, `[2]`, `[0].qa[5]`. */
  place: string;
}

/** A QA file read, or the one problem that stops it. */
export type QaFileResult = { ok: true; rows: QaRow[] } | { ok: false; message: string };

class QaError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function answersOf(v: unknown, place: string): string[] {
  if (typeof v === 'string') return [v];
  if (typeof v === 'number' || typeof v === 'boolean') return [String(v)];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number'))
    return v.map(String);
  throw new QaError(`${place}: "answer" must be text, a number or a list of them`);
}

/** LoCoMo's turns by dia_id (`D1:3` → its text), from the conversation beside the qa list. */
function turnsOf(conversation: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (!isObject(conversation)) return out;
  for (const session of Object.values(conversation)) {
    if (!Array.isArray(session)) continue;
    for (const t of session)
      if (isObject(t) && typeof t.dia_id === 'string' && typeof t.text === 'string')
        out.set(t.dia_id, t.text);
  }
  return out;
}

const ID_KEYS = ['question_id', 'id', 'qa_id'];

/** LongMemEval's turns marked `has_answer: true`, from its sessions (lists of turns). */
function answerTurns(sessions: unknown[]): string[] {
  const out: string[] = [];
  for (const session of sessions)
    if (Array.isArray(session))
      for (const t of session)
        if (isObject(t) && t.has_answer === true && typeof t.content === 'string') out.push(t.content);
  return out;
}

/** One row object; null for a row with no golden answer to judge by (LoCoMo's adversarial questions). */
function rowOf(o: unknown, place: string, turns?: Map<string, string>): QaRow | null {
  if (!isObject(o)) throw new QaError(`${place}: a row must be an object with "question" and "answer"`);
  if (typeof o.question !== 'string' || !o.question.trim()) throw new QaError(`${place}: no "question" text`);
  if (o.answer === undefined || o.answer === null) {
    if (o.adversarial_answer !== undefined || o.correct !== undefined) return null;
    throw new QaError(`${place}: no "answer"`);
  }
  if (o.prediction !== undefined && o.prediction !== null && typeof o.prediction !== 'string')
    throw new QaError(`${place}: "prediction" must be text`);
  if (o.correct !== undefined && o.correct !== null && typeof o.correct !== 'boolean')
    throw new QaError(`${place}: "correct" must be true or false`);
  const idKey = ID_KEYS.find((k) => typeof o[k] === 'string' || typeof o[k] === 'number');
  const evidence = Array.isArray(o.evidence) ? o.evidence.filter((e) => typeof e === 'string') : [];
  // LongMemEval marks the turns that hold the answer with `has_answer`.
  const marked = Array.isArray(o.haystack_sessions) ? answerTurns(o.haystack_sessions) : [];
  return {
    id: idKey ? String(o[idKey]) : null,
    question: o.question,
    answers: answersOf(o.answer, place),
    prediction: typeof o.prediction === 'string' ? o.prediction : null,
    correct: typeof o.correct === 'boolean' ? o.correct : null,
    evidenceTexts: turns
      ? evidence.map((e) => turns.get(e)).filter((t): t is string => t !== undefined)
      : marked,
    place,
  };
}

/** The rows of a value parsed from the file (`place`: a line of JSON Lines, or '' for the whole file). */
function rowsOfParsed(v: unknown, place: string, out: QaRow[]): void {
  if (nestsDeeperThan(v))
    throw new QaError(`${place || 'the file'}: nests more than ${MAX_NESTING} levels deep`);
  rowsOfValue(v, place, out);
}

/** The rows of one parsed value: a row, a list of rows, a LoCoMo sample or a list of them. */
function rowsOfValue(v: unknown, place: string, out: QaRow[]): void {
  const at = (p: string) => (place ? `${place}${p}` : p);
  if (Array.isArray(v)) {
    v.forEach((x, i) => {
      rowsOfValue(x, at(`[${i}]`), out);
    });
    return;
  }
  if (isObject(v) && Array.isArray(v.qa)) {
    const turns = turnsOf(v.conversation);
    v.qa.forEach((q, i) => {
      const r = rowOf(q, at(`${place ? '.' : ''}qa[${i}]`), turns);
      if (r) out.push(r);
    });
    return;
  }
  const r = rowOf(v, place || 'the file');
  if (r) out.push(r);
}

/** Reads a QA file's text (`file` names it in the message). */
export function parseQaFile(raw: string, file: string): QaFileResult {
  const text = stripBom(raw);
  const rows: QaRow[] = [];
  try {
    let whole: unknown;
    let parsed = false;
    try {
      whole = JSON.parse(text);
      parsed = true;
    } catch {
      // JSON Lines, or broken JSON (reported below by line).
    }
    if (parsed) rowsOfParsed(whole, '', rows);
    else readLines(text, rows);
  } catch (e) {
    if (e instanceof QaError) return { ok: false, message: `${file}: ${e.message}` };
    throw e;
  }
  if (rows.length === 0) return { ok: false, message: `${file}: no questions (rows of {question, answer})` };
  return { ok: true, rows };
}

function readLines(text: string, rows: QaRow[]): void {
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (e) {
      const why = e instanceof Error ? e.message.split('\n')[0] : 'not JSON';
      throw new QaError(`line ${i + 1}: not JSON (${why})`);
    }
    rowsOfParsed(v, `line ${i + 1}`, rows);
  });
}

/** A parsed value shaped as a QA file: a row (`question`), a LoCoMo sample (`qa` list), or a list starting with one. */
function qaShaped(v: unknown): boolean {
  const first = Array.isArray(v) ? v[0] : v;
  return isObject(first) && ('question' in first || Array.isArray(first.qa));
}

/** The head of a file that does not parse: its first object opens with a QA row's key. */
const QA_HEAD = /^\s*\[?\s*\{\s*"(question|question_id|qa)"\s*:/;

/**
 * Is this text a QA file rather than a trace, by its shape (never its name): the whole JSON,
 * else its first line (JSON Lines), is a row, a LoCoMo sample or a list of them; a file that
 * does not parse counts when its first object opens with `question`, `question_id` or `qa`, so
 * a broken QA file is refused by `parseQaFile` with its place, not as a trace.
 */
export function looksLikeQaFile(text: string): boolean {
  const t = stripBom(text);
  try {
    return qaShaped(JSON.parse(t));
  } catch {
    // JSON Lines, or broken.
  }
  const start = t.search(/\S/);
  if (start < 0) return false;
  const end = t.indexOf('\n', start);
  try {
    return qaShaped(JSON.parse(t.slice(start, end < 0 ? undefined : end)));
  } catch {
    return QA_HEAD.test(t.slice(start, start + 200));
  }
}
