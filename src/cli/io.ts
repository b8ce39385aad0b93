/** What a CLI command may touch: its streams and environment (injected, so tests run commands in-process). */
export interface Writable {
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

export function printJson(io: CliIO, value: unknown) {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
