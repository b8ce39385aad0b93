/**
 * Which kinds of op can cause which error type — the one rule the label forms and label
 * storage share. An op's kind is its category (`extraction`, `update`, `retrieval`, …); a
 * generic category (`llm_call`, `chain`, `operation`, …) is read from the op's name instead.
 * Only kinds that clearly cannot cause a type are refused: an op writing the memory causes
 * Extraction, Update or Deletion errors (an append that drops old turns deletes; an extraction
 * step can write a version that lost an entry), a search causes Retrieval errors, an answer
 * Response errors, and a judge none of the five. A kind read as neither is allowed every type.
 */
import type { ErrorType } from '../trace/index.ts';

/** The part of a memory system an op plays, read from its category (or name). */
export type OpStage = 'memory' | 'retrieval' | 'response' | 'evaluation' | 'unknown';

/** What the rule needs of an op: its category and its name. */
export interface OpKind {
  category: string;
  name: string;
}

const STAGE_WORDS: readonly (readonly [OpStage, RegExp])[] = [
  ['evaluation', /evaluat|judge|grading/],
  ['retrieval', /retriev|search|recall|rerank|lookup|query/],
  // "generation" alone is the answer step; a name like episode-generation writes memory.
  ['response', /answer|respon[sd]|reply|^generat(e|ion)$/],
  [
    'memory',
    /extract|memori[sz]|construct|summar|chunk|ingest|index|insert|append|add|creat|writ|stor(e|age)|encod|updat|merg|consolidat|mutat|rewrit|edit|upsert|delet|remov|forget|evict|expir|prun/,
  ],
];

/** Categories that say nothing of the op's part (the op's name is read instead). */
const GENERIC =
  /^(llm_call|llm|chat|chain|operation|op|function|tool|agent|workflow|span|step|task|default|other|unknown|)$/;

function stageOfWords(text: string): OpStage {
  const t = text.toLowerCase();
  for (const [stage, re] of STAGE_WORDS) if (re.test(t)) return stage;
  return 'unknown';
}

/** The stage of an op: from its category, else (a generic or unknown category) from its name. */
export function opStage(op: OpKind): OpStage {
  const category = op.category.trim().toLowerCase();
  const byCategory = GENERIC.test(category) ? 'unknown' : stageOfWords(category);
  return byCategory !== 'unknown' ? byCategory : stageOfWords(op.name);
}

/** The error types an op of each stage can cause. */
export const STAGE_CAUSES: Readonly<Record<OpStage, readonly ErrorType[]>> = {
  memory: ['ExtractionError', 'UpdateError', 'DeletionError'],
  retrieval: ['RetrievalError'],
  response: ['ResponseError'],
  evaluation: [],
  unknown: ['ExtractionError', 'UpdateError', 'DeletionError', 'RetrievalError', 'ResponseError'],
};

const STAGE_TEXT: Readonly<Record<OpStage, string>> = {
  memory: 'writes the memory (extraction, update, deletion)',
  retrieval: 'searches the memory',
  response: 'writes the answer',
  evaluation: 'judges the answer after it was given',
  unknown: 'does something the rule cannot tell',
};

/**
 * Why an op of this kind cannot cause this error type, in one sentence for people; null when
 * it can (or the type is not one of the five: other label vocabularies are not judged here).
 */
export function causeRefusal(errorType: string, op: OpKind): string | null {
  const stage = opStage(op);
  const causes = STAGE_CAUSES[stage];
  if (!(STAGE_CAUSES.unknown as readonly string[]).includes(errorType)) return null;
  if ((causes as readonly string[]).includes(errorType)) return null;
  const what = `${op.name || 'this op'} (kind ${op.category || 'none'}) ${STAGE_TEXT[stage]}`;
  return causes.length
    ? `${what}: it can cause ${causes.join(', ')}, not ${errorType}.`
    : `${what}: it causes none of the five error types.`;
}

/** Whether an op of this kind can cause this error type (`causeRefusal` is null). */
export function canCause(errorType: string, op: OpKind): boolean {
  return causeRefusal(errorType, op) === null;
}
