import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/random.ts';
import { parseValue, prettyValue, valueStrings, valueText } from '../../src/core/trace/index.ts';

describe('Python repr values', () => {
  it('parses strings with either quote and escapes', () => {
    expect(parseValue("'hello'")).toBe('hello');
    expect(parseValue(`"it's"`)).toBe("it's");
    expect(parseValue("'a\\'b\\nc\\x41\\u00e9'")).toBe("a'b\ncAé");
  });
  it('parses lists, tuples, dicts, True/False/None and numbers', () => {
    expect(parseValue("['a', (1, 2.5), {'k': True, 'n': None}]")).toEqual([
      'a',
      [1, 2.5],
      { k: true, n: null },
    ]);
    expect(parseValue('-3e2')).toBe(-300);
  });
  it('skips whitespace between items exactly where JavaScript \\s matches (every UTF-16 code unit)', () => {
    const differ: number[] = [];
    for (let c = 0; c < 0x10000; c++) {
      const ch = String.fromCharCode(c);
      // A Python literal (single quotes), so the hand-written reader reads it, not JSON.parse.
      const v = parseValue(`[${ch}'x'${ch}]`);
      const read = Array.isArray(v) && v.length === 1 && v[0] === 'x';
      if (read !== /\s/.test(ch)) differ.push(c);
    }
    expect(differ).toEqual([]);
  });
  it('keeps a __proto__ key as data', () => {
    const v = parseValue("{'__proto__': {'x': 1}}") as Record<string, unknown>;
    expect(Object.hasOwn(v, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
  it('returns undefined for free text, and valueText keeps it as is', () => {
    expect(parseValue('hello world')).toBeUndefined();
    expect(parseValue("['unterminated")).toBeUndefined();
    expect(valueText('hello world')).toBe('hello world');
    expect(valueText("'quoted'")).toBe('quoted');
  });
  it('golden answers read from a list repr or a plain string', () => {
    expect(valueStrings("['7 May 2023', 'May 7']")).toEqual(['7 May 2023', 'May 7']);
    expect(valueStrings("'Paris'")).toEqual(['Paris']);
    expect(valueStrings('Paris, France')).toEqual(['Paris, France']);
  });
  it('pretty-prints structured values and leaves text alone', () => {
    expect(prettyValue("{'a': [1]}")).toBe('{\n  "a": [\n    1\n  ]\n}');
    expect(prettyValue("'text'")).toBe('text');
  });
  it('valueText unquotes exactly one literal and leaves anything else as it is', () => {
    const cases: [string, string][] = [
      ["'plain'", 'plain'],
      ["  'padded'  ", 'padded'],
      ["'it\\'s'", "it's"],
      ["'a\\nb\\tc\\\\d'", 'a\nb\tc\\d'],
      ["'\\x41\\u00e9\\U0001F600'", 'A\u00e9\u{1F600}'],
      ["''", ''],
      ["'\\U00110000'", "'\\U00110000'"],
      ["'a' + 'b'", "'a' + 'b'"],
      ["'x'y'", "'x'y'"],
      ["'unterminated\\'", "'unterminated\\'"],
      ['not a literal', 'not a literal'],
    ];
    for (const [input, expected] of cases) expect(valueText(input), input).toBe(expected);
  });
  it('reads a megabyte string literal', () => {
    const big = `'${'abc def '.repeat(150_000)}'`;
    expect(valueText(big)).toHaveLength(1_200_000);
  });
  it('survives deep nesting without a stack overflow', () => {
    expect(parseValue(`${'['.repeat(5000)}${']'.repeat(5000)}`)).toBeDefined();
  });
});

describe('Python string reprs read back (fuzzed against an encoder written here)', () => {
  const PIECES = ['a', 'word ', "'", '"', '\\', '\n', '\t', 'é', '😀', '\u0007', ' | ', 'x'.repeat(40)];
  /** Python's repr of a str with single quotes (as the toolkit stores values). */
  const pyRepr = (text: string) =>
    `'${[...text]
      .map((ch) => {
        if (ch === '\\') return '\\\\';
        if (ch === "'") return "\\'";
        if (ch === '\n') return '\\n';
        if (ch === '\t') return '\\t';
        if (ch === '\u0007') return '\\x07';
        return ch;
      })
      .join('')}'`;
  it('every string, alone and as items of a list, reads back as the text encoded', () => {
    const r = seededRandom(5);
    const texts = Array.from({ length: 300 }, () =>
      Array.from({ length: Math.floor(r() * 30) }, () => PIECES[Math.floor(r() * PIECES.length)]).join(''),
    );
    for (const t of texts) expect(parseValue(pyRepr(t))).toBe(t);
    // One list: the reader's search for the next backslash carries across its strings.
    expect(parseValue(`[${texts.map(pyRepr).join(', ')}]`)).toEqual(texts);
  });
  it('an unterminated string or a bad escape is no value', () => {
    expect(parseValue("'abc")).toBeUndefined();
    expect(parseValue("'ab\\")).toBeUndefined();
    expect(parseValue("'a\\xZZ'")).toBeUndefined();
  });
});
