/** `memtrace` — the workbench's core from the command line. */
import { parseArgs } from 'node:util';
import { maxOf } from '../core/arrays.ts';
import { isLlmError } from '../core/llm/index.ts';
import { type AnyCommand, commandHelp, parseArgsOptions, readFlags } from './command.ts';
import { agreement } from './commands/agreement.ts';
import { attribute } from './commands/attribute.ts';
import { bench } from './commands/bench.ts';
import { cases } from './commands/cases.ts';
import { chat } from './commands/chat.ts';
import { compare } from './commands/compare.ts';
import { exportCommand } from './commands/export.ts';
import { inject } from './commands/inject.ts';
import { judge } from './commands/judge.ts';
import { makeBench } from './commands/make-bench.ts';
import { optimize } from './commands/optimize.ts';
import { report } from './commands/report.ts';
import { run } from './commands/run.ts';
import { search } from './commands/search.ts';
import { serve } from './commands/serve.ts';
import { stats } from './commands/stats.ts';
import { validate } from './commands/validate.ts';
import { CliError, type CliIO, terminalSafe } from './io.ts';

export const COMMANDS: AnyCommand[] = [
  validate,
  stats,
  cases,
  exportCommand,
  search,
  chat,
  attribute,
  judge,
  bench,
  report,
  optimize,
  run,
  inject,
  makeBench,
  agreement,
  compare,
  serve,
];

function help(): string {
  const width = maxOf(COMMANDS.map((c) => c.name.length));
  return [
    'memtrace — trace and attribute errors in LLM memory systems',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}\n  ${' '.repeat(width)}  ${c.usage}`),
    '',
    'Exit codes: 0 success, 1 invalid input or failure, 2 usage error.',
  ].join('\n');
}

/** Why a command failed, in one line (no stack trace; MEMTRACE_DEBUG=1 adds it). */
function failureLine(e: unknown, debug: boolean): string {
  if (e instanceof CliError) return e.message;
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
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.stderr.write(`memtrace: unknown command "${name}"\n\n${help()}\n`);
    return 2;
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
    io.stderr.write(`memtrace ${name}: ${failureLine(e, !!io.env.MEMTRACE_DEBUG)}\n`);
    return e instanceof CliError ? e.exitCode : 1;
  }
}
