/**
 * Control characters from trace content, made visible instead of obeyed. A terminal runs
 * ESC sequences (colours, cursor moves, an OSC 52 clipboard write, a title change), rings on
 * BEL, and some read C1 bytes (U+0080–U+009F, e.g. U+009B = CSI) the same way; a lone CR
 * rewrites the line it is on. Every such character is written as `\uXXXX` — the notation
 * JSON and JavaScript use, so escaping JSON text this way leaves its value unchanged.
 */

/** Whether line feeds and tabs stay: multi-line text keeps them; a field of one line does not. */
interface ControlOptions {
  /** Keep `\n` and `\t` (and read `\r\n` as `\n`). Default true. */
  multiline?: boolean;
}

const MULTILINE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
const ONE_LINE = /[\u0000-\u001f\u007f-\u009f]/;
const MULTILINE_ALL = new RegExp(MULTILINE.source, 'g');
const ONE_LINE_ALL = new RegExp(ONE_LINE.source, 'g');

const visible = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * `text` with C0 controls (but line feed and tab in multi-line text), DEL and C1 controls
 * written as `\uXXXX`. Text without any is returned as is, after one scan (no copy).
 */
export function escapeControls(text: string, options: ControlOptions = {}): string {
  if (options.multiline === false) return ONE_LINE.test(text) ? text.replace(ONE_LINE_ALL, visible) : text;
  if (!MULTILINE.test(text)) return text;
  return text.replace(/\r\n/g, '\n').replace(MULTILINE_ALL, visible);
}

/** One field of one line (a TSV cell, an id in a message): every control character escaped, `\n` and `\t` too. */
export function oneLine(text: string): string {
  return escapeControls(text, { multiline: false });
}
