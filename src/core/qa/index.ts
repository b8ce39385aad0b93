export { type AnswerJudge, joinQa } from './join.ts';
export { looksLikeQaFile, parseQaFile, type QaRow } from './qa-file.ts';
