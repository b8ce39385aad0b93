/** `memtrace` — the workbench's core from the command line. */
import { parseArgs } from 'node:util';
import type { Command } from './command.ts';
import { agreement } from './commands/agreement.ts';
import { attribute } from './commands/attribute.ts';
import { bench } from './commands/bench.ts';
import { cases } from './commands/cases.ts';
import { chat } from './commands/chat.ts';
import { compare } from './commands/compare.ts';
import { exportCommand } from './commands/export.ts';
import { inject } from './commands/inject.ts';
import { run } from './commands/run.ts';
import { search } from './commands/search.ts';
import { stats } from './commands/stats.ts';
import { validate } from './commands/validate.ts';
import { CliError, type CliIO } from './io.ts';

export const COMMANDS: Command[] = [
  validate,
  stats,
  cases,
  exportCommand,
  search,
  chat,
  attribute,
  bench,
  run,
  inject,
  agreement,
  compare,
];

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'memtrace — trace and attribute errors in LLM memory systems',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}\n  ${' '.repeat(width)}  ${c.usage}`),
    '',
    'Exit codes: 0 success, 1 invalid input or failure, 2 usage error.',
  ].join('\n');
}

export async function main(argv: string[], io: CliIO): Promise<number> {
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
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    io.stderr.write(`memtrace ${name}: ${(e as Error).message}\nusage: ${command.usage}\n`);
    return 2;
  }
  if (parsed.values.help) {
    io.stdout.write(`${command.usage}\n${command.summary}\n`);
    return 0;
  }
  try {
    return await command.run({ positionals: parsed.positionals, values: parsed.values }, io);
  } catch (e) {
    if (e instanceof CliError) {
      io.stderr.write(`memtrace ${name}: ${e.message}\n`);
      return e.exitCode;
    }
    io.stderr.write(
      `memtrace ${name}: unexpected error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
    );
    return 1;
  }
}
