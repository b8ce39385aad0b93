/** `memtrace` — the workbench's core from the command line. */
import { parseArgs } from 'node:util';
import { maxOf } from '../core/arrays.ts';
import { type AnyCommand, commandHelp, parseArgsOptions, readFlags } from './command.ts';
import { COMMAND_TABLE } from './command-table.ts';
import { CliError, type CliIO, terminalSafe } from './io.ts';

/** A command's module with its summary from the table. */
export type LoadedCommand = AnyCommand & { summary: string };

/** Every command, loaded (tests and tools that read every command's flags; a run loads only its own). */
export async function loadCommands(): Promise<LoadedCommand[]> {
  return Promise.all(COMMAND_TABLE.map(async (e) => ({ ...(await e.load()), summary: e.summary })));
}

/** `memtrace --help`: the table of names and summaries (no command module is loaded for it). */
function help(): string {
  const width = maxOf(COMMAND_TABLE.map((c) => c.name.length));
  return [
    'memtrace — trace and attribute errors in LLM memory systems',
    '',
    'Commands:',
    ...COMMAND_TABLE.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    '`memtrace <command> --help` shows its usage and every flag with its default.',
    'Exit codes: 0 success, 1 invalid input or failure, 2 usage error.',
  ].join('\n');
}

/** Why a command failed, in one line (no stack trace; MEMTRACE_DEBUG=1 adds it). */
async function failureLine(e: unknown, debug: boolean): Promise<string> {
  if (e instanceof CliError) return e.message;
  // Loaded here: only the commands that call a model load core/llm, and they have it already.
  const { isLlmError } = await import('../core/llm/index.ts');
  if (isLlmError(e)) return `${e.kind}: ${e.message}`;
  const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  const stack = debug && e instanceof Error && e.stack ? `\n${e.stack}` : '';
  return `unexpected error: ${what.split('\n')[0]}${stack}`;
}

export async function main(argv: string[], given: CliIO): Promise<number> {
  const io = terminalSafe(given);
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(`${help()}\n`);
    return name ? 0 : 2;
  }
  const entry = COMMAND_TABLE.find((c) => c.name === name);
  if (!entry) {
    io.stderr.write(`memtrace: unknown command "${name}"\n\n${help()}\n`);
    return 2;
  }
  let command: LoadedCommand;
  try {
    command = { ...(await entry.load()), summary: entry.summary };
  } catch (e) {
    io.stderr.write(`memtrace ${name}: ${await failureLine(e, !!io.env.MEMTRACE_DEBUG)}\n`);
    return 1;
  }
  const usage = (message: string) => {
    io.stderr.write(`memtrace ${name}: ${message}\nusage: ${command.usage}\n`);
    return 2;
  };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...parseArgsOptions(command.options), help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    return usage((e as Error).message);
  }
  if (parsed.values.help) {
    io.stdout.write(`${commandHelp(command)}\n`);
    return 0;
  }
  const { min, max, name: argName } = command.args;
  const n = parsed.positionals.length;
  if (n < min || n > max) {
    const want = max === 0 ? 'no arguments' : min === max ? `exactly ${argName}` : `${argName}`;
    return usage(
      `takes ${want} (got ${n === 0 ? 'none' : parsed.positionals.map((p) => `"${p}"`).join(' ')})`,
    );
  }
  let values: ReturnType<typeof readFlags>;
  try {
    values = readFlags(command.options, parsed.values);
  } catch (e) {
    return usage((e as Error).message);
  }
  try {
    return await command.run({ positionals: parsed.positionals, values }, io);
  } catch (e) {
    io.stderr.write(`memtrace ${name}: ${await failureLine(e, !!io.env.MEMTRACE_DEBUG)}\n`);
    return e instanceof CliError ? e.exitCode : 1;
  }
}
