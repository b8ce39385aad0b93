/** The face of `src/core/text`: what other modules and layers import from it. */
export { escapeControls, oneLine } from './controls.ts';
export { type DiffLine, diffLines } from './diff.ts';
export { sentences, sentenceWindows } from './sentences.ts';
