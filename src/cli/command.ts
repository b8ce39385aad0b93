/** The shape every `memtrace` command has; main.ts dispatches by name. */
import type { ParseArgsConfig } from 'node:util';
import type { CliIO } from './io.ts';

export type Options = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

export interface Command {
  name: string;
  summary: string;
  usage: string;
  options: Options;
  /** Returns the exit code. */
  run(args: { positionals: string[]; values: Values }, io: CliIO): Promise<number>;
}

export const JSON_FLAG: Options = { json: { type: 'boolean', default: false } };
