export { type AnswerJudge, joinQa, type QaJoin } from './join.ts';
export { parseQaFile, type QaFileResult, type QaRow } from './qa-file.ts';
