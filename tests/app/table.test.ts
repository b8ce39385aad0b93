/**
 * The list helpers (src/app/lib/table.ts), the diff folding (src/app/lib/diff-fold.ts)
 * and the evaluation export (src/app/evaluation/export.ts): pure functions, checked on
 * hand-made rows whose expected output is written out here.
 */
import { describe, expect, it } from 'vitest';
import { casesCsv, csvField } from '../../src/app/evaluation/export.ts';
import { foldDiff } from '../../src/app/lib/diff-fold.ts';
import { filterRows, nextSort, pageOf, sortRows } from '../../src/app/lib/table.ts';
import type { EvaluatedCase } from '../../src/db/runs.ts';
import type { DiffLine } from '../../workers/api.ts';

const rows = [
  { name: 'b', n: 2, label: null as string | null },
  { name: 'a10', n: 10, label: 'UpdateError' },
  { name: 'a9', n: null as number | null, label: 'DeletionError' },
];

describe('table helpers', () => {
  it('sortRows sorts numbers and strings (numerically inside strings), nulls last both ways, stably', () => {
    expect(sortRows(rows, (r) => r.n).map((r) => r.name)).toEqual(['b', 'a10', 'a9']);
    expect(sortRows(rows, (r) => r.n, true).map((r) => r.name)).toEqual(['a10', 'b', 'a9']);
    expect(sortRows(rows, (r) => r.name).map((r) => r.name)).toEqual(['a9', 'a10', 'b']);
    expect(sortRows(rows, (r) => r.label).map((r) => r.name)).toEqual(['a9', 'a10', 'b']);
    expect(sortRows(rows, undefined)).toEqual(rows);
  });
  it('filterRows keeps rows holding every word, case-insensitive', () => {
    expect(filterRows(rows, 'A1 update', (r) => `${r.name} ${r.label}`).map((r) => r.name)).toEqual(['a10']);
    expect(filterRows(rows, '  ', (r) => r.name)).toHaveLength(3);
  });
  it('pageOf clamps the page and says which rows it holds', () => {
    const many = Array.from({ length: 250 }, (_, i) => i);
    expect(pageOf(many, 2, 100)).toMatchObject({ page: 2, pages: 3, first: 200, total: 250 });
    expect(pageOf(many, 9, 100).rows).toHaveLength(50);
    expect(pageOf([], 0, 100)).toMatchObject({ pages: 1, rows: [] });
  });
  it('nextSort: a new column sorts ascending, the same column flips', () => {
    expect(nextSort({ sort: 'a', desc: false }, 'b')).toEqual({ sort: 'b', desc: false });
    expect(nextSort({ sort: 'b', desc: false }, 'b')).toEqual({ sort: 'b', desc: true });
  });
});

describe('foldDiff', () => {
  it('keeps changed lines with two lines of context and folds long unchanged runs', () => {
    const same = (t: string): DiffLine => ({ kind: 'same', text: t });
    const lines: DiffLine[] = [
      ...[...'abcdefg'].map(same),
      { kind: 'add', text: 'X' },
      ...[...'hijklmn'].map(same),
    ];
    const pieces = foldDiff(lines, 2);
    expect(pieces.map((p) => [p.kind, p.lines.map((l) => l.text).join('')])).toEqual([
      ['fold', 'abcde'],
      ['lines', 'fgXhi'],
      ['fold', 'jklmn'],
    ]);
    // A short unchanged run between changes stays open.
    const near = [
      { kind: 'del' as const, text: 'A' },
      same('b'),
      same('c'),
      { kind: 'add' as const, text: 'D' },
    ];
    expect(foldDiff(near, 2)).toEqual([{ kind: 'lines', lines: near }]);
  });
});

describe('evaluation CSV', () => {
  it('quotes commas, quotes and line breaks, and makes formula-like cells inert', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a, "b"\nc')).toBe('"a, ""b""\nc"');
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField(-1.5)).toBe('-1.5');
    expect(csvField(null)).toBe('');
  });
  it('neutralises every formula start OWASP lists, also behind white space and in full width', () => {
    // Each of these starts a formula (or a cell that becomes one) in some spreadsheet.
    const signs = ['=', '+', '-', '@', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20'];
    const leads = ['', ' ', '   ', '\u3000', '\u00a0', '\t', '\n'];
    const cells = [
      ...signs.flatMap((t) => leads.map((lead) => `${lead}${t}1+cmd|' /C calc'!A0`)),
      ...['\t', '\r', '\n'].map((t) => `${t}=1+1`),
      ...['\t', '\r', '\n'].map((t) => `${t}x`),
    ];
    for (const cell of cells) {
      const out = csvField(cell);
      // Unquoted back to the cell's text, it starts with the inert quote followed by the whole cell.
      const text = out.startsWith('"') ? out.slice(1, -1).replaceAll('""', '"') : out;
      expect(text, JSON.stringify(cell)).toBe(`'${cell}`);
    }
    // Text that only contains such characters later stays as it is.
    for (const plain of ['a=1', 'x - y', 'mail@example.org', '1+1', 'hello\tworld'])
      expect(csvField(plain).replace(/^"|"$/g, '')).not.toMatch(/^'/);
    expect(csvField(-1)).toBe('-1'); // numbers are numbers
  });
  it('writes one row per case with the header first', () => {
    const c: EvaluatedCase = {
      method: 'evidence',
      trace_id: 'graph-1',
      query_id: 'query:q@1',
      question: 'When, exactly?',
      system: 'rag',
      label_type: 'RetrievalError',
      label_op: 'op-1',
      predicted_type: 'RetrievalError',
      predicted_op: 'op-2',
      input_tokens: 0,
      output_tokens: 0,
      seconds: 0.25,
      reason: 'because',
      path: [],
    };
    const text = casesCsv([c], () => 'f.json');
    const [head, row] = text.trim().split('\r\n');
    expect(head.split(',')[0]).toBe('trace_file');
    expect(row).toBe(
      'f.json,graph-1,rag,query:q@1,"When, exactly?",RetrievalError,op-1,RetrievalError,op-2,true,false,0.25,0,0,evidence,because',
    );
  });
});
