import { escapeControls, oneLine } from '../core/text/index.light.ts';

/** What a CLI command may touch: its streams and environment (injected, so tests run commands in-process). */
interface Writable {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

export interface CliIO {
  stdout: Writable;
  stderr: Writable;
  env: Record<string, string | undefined>;
}

/** A command failed on its input: print the message, exit 1. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/**
 * The streams with every control character a trace (or a model) could smuggle in — ESC, BEL,
 * OSC 52, C1, a lone CR — written as `\uXXXX`; line feeds and tabs stay. Applied once to
 * everything a command prints, human text and JSON alike (JSON.stringify already escapes C0,
 * and `\u0080`–`\u009f` / `\u007f` read back as the same characters).
 */
export function terminalSafe(io: CliIO): CliIO {
  const safe = (w: Writable): Writable => ({
    write: (chunk: string) => w.write(escapeControls(chunk)),
    isTTY: w.isTTY,
  });
  return { ...io, stdout: safe(io.stdout), stderr: safe(io.stderr) };
}

/** One line of human output on stdout: a line break, tab or other control character inside it (from a trace) escaped. */
export function printLine(io: CliIO, line: string) {
  io.stdout.write(`${oneLine(line)}\n`);
}

/**
 * One row of tab-separated human output: the separators are real tabs, and each field has its
 * own control characters (a tab or line break from a trace among them) escaped, so every row
 * splits into the same fields.
 */
export function printRow(io: CliIO, fields: readonly string[]) {
  io.stdout.write(`${fields.map(oneLine).join('\t')}\n`);
}

/** Prints `value` as indented JSON on stdout. */
export function printJson(io: CliIO, value: unknown) {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
