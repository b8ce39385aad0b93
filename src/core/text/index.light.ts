/**
 * The light face of core/text: control characters shown safely, without the line diff (the
 * `diff` package), for core/trace, which the app's start chunk loads, and the CLI's streams.
 */

export { escapeControls, oneLine } from './controls.ts';
