/**
 * One typed flag parser (`readFlags` after node's parseArgs): every flag that declares its
 * choices or a number is checked before the command runs, with one message style —
 * `memtrace CMD: --FLAG must be … (got "…")`, then the usage line — and exit 2.
 */
import { describe, expect, it } from 'vitest';
import { readFlags } from '../../src/cli/command.ts';
import { loadCommands } from '../../src/cli/main.ts';
import { runCli } from '../helpers/cli.ts';

const COMMANDS = await loadCommands();

/** Enough positional arguments for the command's count check (they are never read: the flag fails first). */
const positionals = (name: string) => {
  const c = COMMANDS.find((x) => x.name === name)!;
  return Array.from({ length: c.args.min }, () => 'unread.json');
};

/** The first line of stderr, which must be the whole message. */
async function usageError(argv: string[], env: Record<string, string> = {}) {
  const r = await runCli([argv[0], ...positionals(argv[0]), ...argv.slice(1)], env);
  const [line, usage] = r.stderr.split('\n');
  return { code: r.code, line, usage };
}

describe('flag values outside what a flag accepts', () => {
  // Expectations written out from the README's contract table, not from the declarations.
  const cases: [string[], string][] = [
    [
      ['search', '--query', 'q', '--method', 'fuzzy'],
      '--method must be one of bm25, dense, hybrid (got "fuzzy")',
    ],
    [['search', '--query', 'q', '--docs', 'some'], '--docs must be one of messages, all (got "some")'],
    [['search', '--query', 'q', '--k', '0'], '--k must be an integer ≥ 1 (got "0")'],
    [['run', '--memories', 'llm'], '--memories must be one of offline, recorded (got "llm")'],
    [['run', '--format', 'csv'], '--format must be one of smartcomment, otlp, openinference (got "csv")'],
    [['run', '--dataset', 'msc'], '--dataset must be one of locomo, realmem, longmemeval (got "msc")'],
    [
      ['make-bench', '--judge-rule', 'exact'],
      '--judge-rule must be one of offline, containment, token-f1, half-words (got "exact")',
    ],
    [['export', '--indent', '9'], '--indent must be an integer from 0 to 8 (got "9")'],
    [['export', '--format', 'csv'], '--format must be one of smartcomment, otlp, openinference (got "csv")'],
    [['report', '--format', 'md,pdf'], '--format must be one of md, html, json, paper (got "pdf")'],
    [['attribute', '--method', 'guess'], '--method must be one of evidence, memtrace, obs (got "guess")'],
    [['attribute', '--match', 'fuzzy'], '--match must be one of lexical, normalised, vectors (got "fuzzy")'],
    [['attribute', '--format', 'csv'], '--format must be one of memtrace (got "csv")'],
    [['bench', '--preset', 'huge'], '--preset must be one of paper, window-scaled (got "huge")'],
    [['agreement', '--engine', 'llm'], '--engine must be one of evidence (got "llm")'],
    [['agreement', '--max-pairs=-1'], '--max-pairs must be an integer ≥ 0 (got "-1")'],
    [['chat', '--temperature', 'warm', 'hi'], '--temperature must be a number (got "warm")'],
    [['chat', '--provider', 'ollama', 'hi'], '--provider must be one of openai, anthropic (got "ollama")'],
    [['serve', '--port', '70000'], '--port must be an integer from 0 to 65535 (got "70000")'],
    [
      ['inject', '--types', 'extraction,typo'],
      '--types must be one of extraction, update, deletion, retrieval, response (got "typo")',
    ],
    [['optimize', '--rounds', 'two'], '--rounds must be an integer ≥ 1 (got "two")'],
  ];
  for (const [argv, message] of cases)
    it(`${argv.join(' ')}: exit 2, one line naming the flag and what it accepts`, async () => {
      const r = await usageError(argv);
      expect(r.code).toBe(2);
      expect(r.line).toBe(`memtrace ${argv[0]}: ${message}`);
      expect(r.usage).toMatch(/^usage: memtrace /);
    });

  it('$MEMTRACE_PROVIDER is checked as --provider is', async () => {
    const r = await runCli(['chat', '--model', 'm', 'hi'], { MEMTRACE_PROVIDER: 'ollama' });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('memtrace chat: --provider must be one of openai, anthropic (got "ollama")\n');
  });

  it('every flag that declares choices refuses another value in that style', async () => {
    let checked = 0;
    for (const c of COMMANDS)
      for (const [flag, spec] of Object.entries(c.options)) {
        if (!spec.choices) continue;
        const r = await usageError([c.name, `--${flag}`, 'not-a-choice']);
        expect(r.code, `${c.name} --${flag}`).toBe(2);
        expect(r.line).toBe(
          `memtrace ${c.name}: --${flag} must be one of ${spec.choices.join(', ')} (got "not-a-choice")`,
        );
        checked++;
      }
    // At least the flags listed above (a flag losing its declared choices is caught here).
    expect(checked).toBeGreaterThanOrEqual(20);
  });
});

describe('readFlags', () => {
  it('gives the command typed values: numbers, choices, lists; defaults and absent flags as parseArgs left them', () => {
    const values = readFlags(
      {
        n: { type: 'string', int: { min: 0 }, help: '' },
        t: { type: 'string', number: true, help: '' },
        kind: { type: 'string', choices: ['a', 'b'], help: '' },
        kinds: { type: 'string', choices: ['a', 'b'], list: true, help: '' },
        free: { type: 'string', help: '' },
        quiet: { type: 'boolean', help: '' },
      },
      { n: '3', t: '0.5', kind: 'b', kinds: 'a, b', free: '7', quiet: true },
    );
    expect(values).toEqual({ n: 3, t: 0.5, kind: 'b', kinds: ['a', 'b'], free: '7', quiet: true });
  });
});
