/**
 * The evaluation CSV's formula guard sees through characters a reader cannot see: a
 * zero-width space, joiner, bidi mark, BOM or other format / default-ignorable character
 * (alone or mixed with white space) before `= + - @` still makes the cell inert, as do the
 * compatibility forms of those signs that a spreadsheet may fold (small, full width).
 */
import { describe, expect, it } from 'vitest';
import { csvField } from '../../src/app/evaluation/export.ts';

/** The cell's text as a spreadsheet reads it back from `csvField`'s output (RFC 4180 unquoting). */
const unquoted = (field: string) =>
  field.startsWith('"') ? field.slice(1, -1).replaceAll('""', '"') : field;

const INVISIBLE = [
  ['zero-width space', '\u200B'],
  ['zero-width non-joiner', '\u200C'],
  ['zero-width joiner', '\u200D'],
  ['word joiner', '\u2060'],
  ['byte order mark', '\uFEFF'],
  ['soft hyphen', '\u00AD'],
  ['left-to-right mark', '\u200E'],
  ['right-to-left override', '\u202E'],
  ['first-strong isolate', '\u2068'],
  ['arabic letter mark', '\u061C'],
  ['mongolian vowel separator', '\u180E'],
  ['hangul filler', '\u3164'],
  ['combining grapheme joiner', '\u034F'],
  ['variation selector 16', '\uFE0F'],
  ['zero-width space between spaces', ' \u200B '],
  ['several', '\u200B\u200D\uFEFF\u2060'],
] as const;

describe('evaluation CSV formula guard', () => {
  it.each(INVISIBLE)('an invisible %s before a formula sign is made inert', (_, lead) => {
    for (const sign of ['=', '+', '-', '@', '\uFF1D']) {
      const cell = `${lead}${sign}HYPERLINK("http://evil.example","x")`;
      expect(unquoted(csvField(cell)), JSON.stringify(cell)).toBe(`'${cell}`);
    }
  });

  it('compatibility forms of the signs (small, full width) are made inert, behind invisible characters too', () => {
    for (const sign of ['\uFE66', '\uFE62', '\uFE63', '\uFE6B', '\uFF0B', '\uFF20'])
      for (const lead of ['', '\u200B']) {
        const cell = `${lead}${sign}1+1`;
        expect(unquoted(csvField(cell)), JSON.stringify(cell)).toBe(`'${cell}`);
      }
  });

  it('text with invisible characters but no formula start stays as it is', () => {
    for (const plain of ['\u200Bhello', 'a\u200B=1', '\uFEFFplain', 'x\u200D-y', '\u00ADword'])
      expect(unquoted(csvField(plain))).toBe(plain);
  });
});
