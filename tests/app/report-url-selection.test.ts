/**
 * The Report's selection as the URL keeps it (src/app/report/selection.ts): systems and traces
 * ticked or unticked, "all" written as nothing, an emptied list never read as "all".
 */
import { describe, expect, it } from 'vitest';
import { chosenTraces, readSelection, toggleSystem, toggleTrace } from '../../src/app/report/selection.ts';

const traces = [
  { id: 'a', system: 'rag' },
  { id: 'b', system: 'rag' },
  { id: 'c', system: 'mem0' },
  { id: 'd', system: null },
];
const systems = ['mem0', 'rag', 'unknown'];
const ids = (xs: { id: string }[]) => xs.map((x) => x.id);

describe("the Report's selection", () => {
  it('chooses every trace when the URL names none', () => {
    const sel = readSelection({ systems: '', traces: '', labels: 'people' });
    expect(ids(chosenTraces(sel, traces))).toEqual(['a', 'b', 'c', 'd']);
  });

  it('chooses the traces of the named systems, a trace without one counting as unknown', () => {
    expect(ids(chosenTraces(readSelection({ systems: 'rag', traces: '', labels: '' }), traces))).toEqual([
      'a',
      'b',
    ]);
    expect(ids(chosenTraces(readSelection({ systems: 'unknown', traces: '', labels: '' }), traces))).toEqual([
      'd',
    ]);
    expect(ids(chosenTraces(readSelection({ systems: 'rag', traces: 'b,c', labels: '' }), traces))).toEqual([
      'b',
    ]);
  });

  it('unticking writes the rest, ticking all again writes nothing, unticking all chooses none', () => {
    const all = readSelection({ systems: '', traces: '', labels: 'none' });
    const noRag = toggleSystem(all, 'rag', false, systems);
    expect(noRag.systems).toEqual(['mem0', 'unknown']);
    expect(ids(chosenTraces(noRag, traces))).toEqual(['c', 'd']);
    expect(toggleSystem(noRag, 'rag', true, systems).systems).toEqual([]);

    let sel = all;
    for (const t of traces) sel = toggleTrace(sel, t.id, false, traces);
    expect(chosenTraces(sel, traces)).toEqual([]);
    sel = toggleTrace(sel, 'c', true, traces);
    expect(sel.traces).toEqual(['c']);
    expect(ids(chosenTraces(sel, traces))).toEqual(['c']);
    expect(sel.labels).toBe('none');
  });
});
