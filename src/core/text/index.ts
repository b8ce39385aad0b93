/**
 * Plain-text helpers without language models: control characters shown safely (`oneLine`,
 * `escapeControls`), line diffs, sentence splitting. Light, so the trace importer and the CLI's
 * output can use it; language analysis (compromise) is core/nlp.
 */

export { escapeControls, oneLine } from './controls.ts';
export { type DiffLine, diffLines } from './diff.ts';
export { sentences, sentenceWindows } from './sentences.ts';
export { answerTokens, tokenF1 } from './tokens.ts';
