/**
 * The shape every `memtrace` command has; main.ts dispatches by name and applies the checks
 * every command shares (flags, argument counts, `--help`, one-line errors), so a command
 * added later gets them by declaring its flags and arguments here.
 */

import { maxOf } from '../core/arrays.ts';
import { CliError, type CliIO } from './io.ts';

/**
 * One flag: node's parseArgs option plus what `--help` says about it and what its value may
 * be. `readFlags` checks every declared rule once, before the command runs, with one message
 * style (`--NAME must be … (got "…")`, exit 2), and the command sees the value typed
 * (`ValuesOf`): a choice as its union, a number as a number.
 */
interface Flag {
  type: 'string' | 'boolean';
  short?: string;
  default?: string | boolean;
  multiple?: boolean;
  /** What the flag does, for `--help` (its default is added from `default`, or say it here). */
  help: string;
  /** The value's placeholder in `--help` (string flags), e.g. `FILE`, `N`; `a|b|c` for choices. */
  value?: string;
  /** The values a string flag takes, declared once: any other is a usage error naming them. */
  choices?: readonly string[];
  /** With `choices`: a comma-separated list of them (e.g. `--format md,html`). */
  list?: boolean;
  /** A whole number from `min` (to `max`); the command gets a number. */
  int?: { min: number; max?: number };
  /** Any finite number; the command gets a number. */
  number?: true;
}

type Options = Record<string, Flag>;

type Scalar<F extends Flag> = F extends { int: object } | { number: true }
  ? number
  : F extends { choices: readonly (infer C)[] }
    ? F extends { list: true }
      ? C[]
      : C
    : string;
type FlagValue<F extends Flag> = F extends { type: 'boolean' }
  ? boolean
  : F extends { multiple: true }
    ? string[]
    : Scalar<F>;
type HasDefault = { default: string | boolean };
/**
 * A command's flag values as `readFlags` returns them, typed by their declaration: a flag with
 * a default is always set, the others are optional.
 */
export type ValuesOf<O extends Options> = {
  [K in keyof O as O[K] extends HasDefault ? K : never]: FlagValue<O[K]>;
} & { [K in keyof O as O[K] extends HasDefault ? never : K]?: FlagValue<O[K]> };

/** The positional arguments a command takes (checked before it runs: a wrong count is a usage error). */
interface Args {
  min: number;
  max: number;
  /** How `--help` and usage errors name them, e.g. `<file>`, `<files or dirs…>`. */
  name: string;
}

/** A command's module: its name (as in the command table, which holds its summary), usage, arguments and flags. */
export interface Command<O extends Options = Options> {
  name: string;
  usage: string;
  args: Args;
  options: O;
  /** Returns the exit code. */
  run(args: { positionals: string[]; values: ValuesOf<O> }, io: CliIO): Promise<number>;
}

/**
 * A command of any flags, as the dispatcher lists them: each is run with the values
 * `readFlags` read against its own options, which is what its `run` is typed for.
 */
// biome-ignore lint/suspicious/noExplicitAny: the list pairs each command with its own options' values
export type AnyCommand = Omit<Command<any>, 'options'> & { options: Options };

/** Declares a command, keeping its flags' literal types so `run` sees typed values. */
export function command<const O extends Options>(c: Command<O>): Command<O> {
  return c;
}

/** Declares a group of flags shared by commands, keeping their literal types. */
export function flags<const O extends Options>(o: O): O {
  return o;
}

/** The one usage message for a value outside its choices: `--NAME must be one of a, b (got "x")`. */
function notOneOf(name: string, choices: readonly string[], got: string): CliError {
  return new CliError(`--${name} must be one of ${choices.join(', ')} (got "${got}")`, 2);
}

/** `value` if it is one of `choices` (also for values read from the environment), else the usage error. */
export function oneOf<C extends string>(name: string, choices: readonly C[], value: string): C {
  if (!(choices as readonly string[]).includes(value)) throw notOneOf(name, choices, value);
  return value as C;
}

/** One parsed value checked and converted by its flag's declaration. */
function readValue(name: string, f: Flag, v: string): string | number | string[] {
  if (f.int) {
    const n = Number(v);
    const { min, max } = f.int;
    if (v.trim() === '' || !Number.isInteger(n) || n < min || (max !== undefined && n > max))
      throw new CliError(
        `--${name} must be ${max === undefined ? `an integer ≥ ${min}` : `an integer from ${min} to ${max}`} (got "${v}")`,
        2,
      );
    return n;
  }
  if (f.number) {
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n))
      throw new CliError(`--${name} must be a number (got "${v}")`, 2);
    return n;
  }
  if (!f.choices) return v;
  if (!f.list) return oneOf(name, f.choices, v);
  return v.split(',').map((x) => oneOf(name, f.choices ?? [], x.trim()));
}

/**
 * The flags parseArgs read, checked against their declarations and converted (choices, lists,
 * numbers); throws a usage error (exit 2) naming the flag and what it accepts.
 */
export function readFlags<O extends Options>(options: O, parsed: Record<string, unknown>): ValuesOf<O> {
  const out: Record<string, unknown> = { ...parsed };
  for (const [name, f] of Object.entries(options)) {
    const v = parsed[name];
    if (typeof v === 'string') out[name] = readValue(name, f, v);
  }
  return out as ValuesOf<O>;
}

export const JSON_FLAG = flags({
  json: {
    type: 'boolean',
    default: false,
    help: 'print the result as JSON on stdout (progress stays on stderr)',
  },
});

/** `memtrace <command> --help`: usage, summary, the arguments and every flag with its default. */
export function commandHelp(c: { usage: string; summary: string; args: Args; options: Options }): string {
  const rows = Object.entries(c.options).map(([name, f]) => {
    const left = `--${name}${f.short ? `, -${f.short}` : ''}${f.type === 'string' ? ` ${f.value ?? f.choices?.join('|') ?? 'VALUE'}` : ''}`;
    const dflt = f.default !== undefined && f.default !== false ? ` (default: ${String(f.default)})` : '';
    return [left, `${f.help}${dflt}`] as const;
  });
  const width = maxOf(
    rows.map(([l]) => l.length),
    10,
  );
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

/** The options as node's parseArgs wants them (without the help texts and value rules). */
export function parseArgsOptions(o: Options) {
  return Object.fromEntries(
    Object.entries(o).map(([k, { type, short, default: d, multiple }]) => [
      k,
      // parseArgs rejects keys present with undefined values.
      Object.fromEntries(
        Object.entries({ type, short, default: d, multiple }).filter(([, v]) => v !== undefined),
      ),
    ]),
  );
}
