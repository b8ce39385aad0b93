/**
 * `neighbourhoodDrawing`: what the analysis worker sends the page so the neighbourhood
 * is drawn without the graph — ids, labels, categories and short value previews.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTrace } from '../../src/core/graph/index.ts';
import { NODE_OP, neighbourhoodDrawing, previewText } from '../../src/core/layout/index.ts';

const DATA = join(import.meta.dirname, '../../../shared/data/smartcomment');

describe('neighbourhoodDrawing on a real file', () => {
  const r = openTrace(readFileSync(join(DATA, 'conv-26-fault-0.json'), 'utf8'), { file: 'x' });
  if (!r.ok) throw new Error('did not open');
  const g = r.graph;

  it('names every node and gives variables a one-line preview of their value', () => {
    const op = g.opName.lastIndexOf('llm-judge');
    const d = neighbourhoodDrawing(g, { ops: [op] }, { depth: 2, maxLabelChars: 28 });
    const n = d.nb.kind.length;
    expect(n).toBeGreaterThan(3);
    for (const a of [d.ids, d.labels, d.categories, d.values]) expect(a.length).toBe(n);
    expect(d.seeds).toEqual([0]);
    expect(d.ids[0]).toBe(g.opId[op]);
    expect(d.labels[0]).toBe('llm-judge');
    for (let l = 0; l < n; l++) {
      const i = d.nb.index[l];
      if (d.nb.kind[l] === NODE_OP) {
        expect(d.ids[l]).toBe(g.opId[i]);
        expect(d.categories[l]).toBe(g.opCategory[i]);
        expect(d.values[l]).toBe('');
      } else {
        expect(d.ids[l]).toBe(g.varId[i]);
        expect(d.categories[l]).toBe(g.varCategory[i]);
        expect(d.values[l].length).toBeLessThanOrEqual(30);
        expect(d.values[l]).not.toMatch(/\n/);
        const folded = g.varValue[i].replace(/\s+/g, ' ');
        // The pill is wide enough for its value line as well as its name.
        expect(d.layout.width[l]).toBeGreaterThanOrEqual(d.values[l].length * 6.6 + 20);
        if (folded.length <= 30) expect(d.values[l]).toBe(folded);
        else expect(d.values[l]).toBe(`${folded.slice(0, 29)}…`);
      }
    }
    // Plain data: it crosses the worker boundary by structured clone.
    expect(structuredClone(d).ids).toEqual(d.ids);
  });

  it('previewText cuts long values without folding all of them', () => {
    expect(previewText('a\n  b', 10)).toBe('a b');
    expect(previewText('x'.repeat(5_000_000), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(previewText(`a${' '.repeat(20)}b`, 10)).toBe('a b');
    expect(previewText(`a${' '.repeat(200)}b`, 10)).toBe('a …');
    expect(previewText(`${' '.repeat(300)}b`, 10)).toBe(' …');
  });
});
