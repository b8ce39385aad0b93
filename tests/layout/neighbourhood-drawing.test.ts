/**
 * `neighbourhoodDrawing`: what the analysis worker sends the page so the neighbourhood
 * is drawn without the graph — ids, labels, categories and short value previews.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTrace, row, type TraceGraph } from '../../src/core/graph/index.ts';
import { changePreview, NODE_OP, neighbourhoodDrawing, previewText } from '../../src/core/layout/index.ts';

const DATA = join(import.meta.dirname, '../../../shared/data/smartcomment');

function open(file: string): TraceGraph {
  const r = openTrace(readFileSync(join(DATA, file), 'utf8'), { file });
  if (!r.ok) throw new Error(`${file} did not open`);
  return r.graph;
}

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

describe('neighbourhoodDrawing readability', () => {
  it('a shared constant (a prompt read by many ops) is drawn but not expanded into its readers', () => {
    const g = open('conv-26-fault-0.json');
    const prompt = g.varIndex.get('fact-extraction-system-prompt@1')!;
    const readers = new Set(Array.from(row(g.varOutEdges, prompt), (e) => g.edgeOp[e]));
    expect(readers.size).toBeGreaterThan(4);
    const op = [...readers][3];
    const d = neighbourhoodDrawing(g, { ops: [op] }, { depth: 2 });
    const local = d.ids.indexOf(g.varId[prompt]);
    expect(local).toBeGreaterThanOrEqual(0);
    expect(d.nb.shared[local]).toBe(readers.size);
    // Only the seed among the prompt's readers is drawn (no flood of sibling ops).
    const drawnReaders = [...readers].filter((o) => d.ids.includes(g.opId[o]));
    expect(drawnReaders).toEqual([op]);
    // Expanding everything brings them back.
    const all = neighbourhoodDrawing(g, { ops: [op] }, { depth: 2, sharedReaders: Number.POSITIVE_INFINITY });
    expect([...readers].filter((o) => all.ids.includes(g.opId[o])).length).toBeGreaterThan(1);
  });

  it('later versions preview what changed, so versions of one unit read apart', () => {
    expect(changePreview("['a', 'b']", "['a', 'b', 'Caroline went hiking']", 30)).toBe(
      "+ 'b', 'Caroline went hiking']",
    );
    expect(changePreview("['a', 'gone', 'c']", "['a', 'c']", 30).startsWith('− ')).toBe(true);
    const g = open('conv-26-fault-0.json');
    const v = g.varIndex.get('memory-store@20')!;
    const d = neighbourhoodDrawing(g, { vars: [v] }, { depth: 1 });
    const versions = d.ids
      .map((id, l) => [id, d.values[l]] as const)
      .filter(([id]) => id.startsWith('memory-store@'));
    expect(versions.length).toBeGreaterThan(1);
    expect(new Set(versions.map(([, text]) => text)).size).toBe(versions.length);
  });

  it('with a fit, fewer hops and nodes are shown until the drawing fits at full size', () => {
    const g = open('conv-26-fault-0.json');
    const op = g.opName.lastIndexOf('memory-update');
    const fit = { width: 640, height: 380 };
    const d = neighbourhoodDrawing(g, { ops: [op] }, { depth: 3, fit });
    expect(d.layout.totalWidth + 48).toBeLessThanOrEqual(fit.width);
    expect(d.layout.totalHeight + 48).toBeLessThanOrEqual(fit.height);
    expect(d.seeds.map((l) => d.ids[l])).toEqual([g.opId[op]]);
    const free = neighbourhoodDrawing(g, { ops: [op] }, { depth: 3 });
    expect(free.nb.kind.length).toBeGreaterThanOrEqual(d.nb.kind.length);
    expect(d.reduced).toBe(
      free.layout.totalWidth + 48 > fit.width || free.layout.totalHeight + 48 > fit.height,
    );
  });
});
