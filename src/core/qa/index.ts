export { type AnswerJudge, joinQa } from './join.ts';
export { parseQaFile, type QaRow } from './qa-file.ts';
