/**
 * The shape every `memtrace` command has; main.ts dispatches by name and applies the checks
 * every command shares (flags, argument counts, `--help`, one-line errors), so a command
 * added later gets them by declaring its flags and arguments here.
 */
import { CliError, type CliIO } from './io.ts';

/** One flag: node's parseArgs option plus what `--help` says about it. */
export interface Flag {
  type: 'string' | 'boolean';
  short?: string;
  default?: string | boolean;
  multiple?: boolean;
  /** What the flag does, for `--help` (its default is added from `default`, or say it here). */
  help: string;
  /** The value's placeholder in `--help` (string flags), e.g. `FILE`, `N`. */
  value?: string;
}

export type Options = Record<string, Flag>;
export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** The positional arguments a command takes (checked before it runs: a wrong count is a usage error). */
export interface Args {
  min: number;
  max: number;
  /** How `--help` and usage errors name them, e.g. `<file>`, `<files or dirs…>`. */
  name: string;
}

export interface Command {
  name: string;
  summary: string;
  usage: string;
  args: Args;
  options: Options;
  /** Returns the exit code. */
  run(args: { positionals: string[]; values: Values }, io: CliIO): Promise<number>;
}

export const JSON_FLAG: Options = {
  json: {
    type: 'boolean',
    default: false,
    help: 'print the result as JSON on stdout (progress stays on stderr)',
  },
};

/** `memtrace <command> --help`: usage, summary, the arguments and every flag with its default. */
export function commandHelp(c: Command): string {
  const rows = Object.entries(c.options).map(([name, f]) => {
    const left = `--${name}${f.short ? `, -${f.short}` : ''}${f.type === 'string' ? ` ${f.value ?? 'VALUE'}` : ''}`;
    const dflt = f.default !== undefined && f.default !== false ? ` (default: ${String(f.default)})` : '';
    return [left, `${f.help}${dflt}`] as const;
  });
  const width = Math.max(...rows.map(([l]) => l.length), 10);
  return [
    `usage: ${c.usage}`,
    c.summary,
    '',
    `arguments: ${c.args.max === 0 ? 'none' : c.args.name}`,
    'flags:',
    ...rows.map(([l, r]) => `  ${l.padEnd(width)}  ${r}`),
    `  ${'--help, -h'.padEnd(width)}  this help`,
  ].join('\n');
}

/** The options as node's parseArgs wants them (without the help texts). */
export function parseArgsOptions(o: Options) {
  return Object.fromEntries(Object.entries(o).map(([k, { help: _h, value: _v, ...rest }]) => [k, rest]));
}

/** An integer flag: undefined when absent; a usage error (exit 2) when not an integer ≥ `min`. */
export function intFlag(values: Values, name: string, min: number): number | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min)
    throw new CliError(`--${name} must be an integer ≥ ${min} (got "${v}")`, 2);
  return n;
}
