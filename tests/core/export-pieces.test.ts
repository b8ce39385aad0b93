/**
 * `smartcommentPieces` writes, piece by piece, exactly the text `JSON.stringify(doc, null, n)`
 * writes: real traces, and documents with what JSON.stringify leaves out or turns into null.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { smartcommentPieces, type TraceDocument } from '../../src/core/trace/index.ts';
import { smartcommentFiles } from '../helpers/shared-data.ts';

const joined = (doc: TraceDocument, indent?: number) =>
  [...smartcommentPieces(doc, indent === undefined ? {} : { indent })].join('');

describe('smartcomment text in pieces', () => {
  it('joins to JSON.stringify(doc, null, 2) on the real traces, one piece per record at least', () => {
    for (const file of smartcommentFiles().slice(0, 3)) {
      const doc = JSON.parse(readFileSync(file, 'utf8')) as TraceDocument;
      expect(joined(doc)).toBe(JSON.stringify(doc, null, 2));
      expect([...smartcommentPieces(doc)].length).toBeGreaterThan(doc.data.nodes.length);
    }
  });

  it('leaves out and nulls what JSON.stringify does, at every indent', () => {
    const odd = {
      graph_id: 'g',
      skipped: undefined,
      fn: () => 1,
      when: new Date(0),
      empty: {},
      none: [],
      nested: { a: [1, { b: 'line\nbreak "quoted"' }], c: {} },
      data: {
        nodes: [{ value: 'x', gone: undefined }, undefined, () => 2, [], {}, 'text', 7, null],
        operations: [],
        meta: { deep: { deeper: [1, [2, [3]]] } },
        dropped: undefined,
        weird: { toJSON: () => undefined },
      },
    } as unknown as TraceDocument;
    for (const indent of [undefined, 0, 1, 4, 12])
      expect(joined(odd, indent), `indent ${indent}`).toBe(JSON.stringify(odd, null, indent ?? 2));
    const emptyData = { graph_id: 'g', data: {} } as unknown as TraceDocument;
    expect(joined(emptyData)).toBe(JSON.stringify(emptyData, null, 2));
  });
});
