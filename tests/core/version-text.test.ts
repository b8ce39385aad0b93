/**
 * Versions' repeated text stored once (`shareVersionTexts`, used by both readers): every value
 * reads back equal to what `JSON.parse` gives for the same text (and export writes it back
 * unchanged), and a long-context chain is held as about its unique text, not as every window.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { syntheticText } from '../../bench/synthetic.ts';
import { buildGraph } from '../../src/core/graph/index.ts';
import {
  exportSmartcomment,
  firstMark,
  hasSharedValue,
  parseTraceChunks,
  parseTraceText,
  shareVersionTexts,
  smartcommentPieces,
  type TraceDocument,
  valueCut,
} from '../../src/core/trace/index.ts';
import { smartcommentFiles } from '../helpers/shared-data.ts';

const utf8 = new TextEncoder();

async function* pieces(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

type Node = { name: string; value: unknown };

/** Every variable record's value, as read now (through the document's records). */
function values(doc: { data: { nodes: Node[] } }): unknown[] {
  return doc.data.nodes.map((n) => n.value);
}

/** Reads `text` with both readers; checks each value, the export and the graph against `JSON.parse`. */
async function expectSameValues(text: string, chunk = 4096): Promise<TraceDocument[]> {
  const plain = JSON.parse(text) as TraceDocument;
  const whole = parseTraceText(text, { file: 'f.json' });
  const streamed = await parseTraceChunks(pieces(utf8.encode(text), chunk), { file: 'f.json' });
  const docs: TraceDocument[] = [];
  for (const r of [whole, streamed]) {
    expect(r?.ok).toBe(true);
    if (!r?.ok) continue;
    expect(values(r.doc)).toEqual(values(plain));
    expect(exportSmartcomment(r.doc)).toBe(exportSmartcomment(plain));
    expect([...smartcommentPieces(r.doc)].join('')).toBe(exportSmartcomment(plain));
    const g = buildGraph(r.doc);
    const expected = buildGraph(JSON.parse(text)).varValue;
    expect(g.varValue.length).toBe(expected.length);
    for (let i = 0; i < expected.length; i++) expect(g.varValue[i]).toBe(expected[i]);
    expect([...g.varValue]).toEqual([...expected]);
    docs.push(r.doc);
  }
  return docs;
}

const WINDOW = 3000;
const small = syntheticText({ targetBytes: 1_200_000, windowChars: WINDOW, questions: 3 });

describe('versions sharing their text', () => {
  it('read back every value of a long-context trace as JSON.parse gives it (both readers, export, graph)', async () => {
    const [doc] = await expectSameValues(small);
    // The values compared above were stored shared, not left as parsed.
    const windows = doc.data.nodes.filter((n) => n.name === 'context-window');
    expect(windows.filter((n) => hasSharedValue(n)).length).toBeGreaterThan(windows.length * 0.9);
  });

  it("gives a shared value's cut of its segment: the value but for its quotes and brackets; none for a plain one", async () => {
    const [doc] = await expectSameValues(small);
    const plain = JSON.parse(small) as TraceDocument;
    let shared = 0;
    doc.data.nodes.forEach((n, i) => {
      const cut = valueCut(n);
      if (cut) {
        shared++;
        // The cut is the value but for the quotes and brackets at its ends.
        const value = plain.data.nodes[i].value as string;
        const inner = cut.shared.text.slice(cut.start, cut.end);
        const at = value.indexOf(inner);
        expect(at).toBeGreaterThanOrEqual(0);
        expect(value.slice(0, at) + value.slice(at + inner.length)).toMatch(/^['"()[\]{}]*$/);
      } else expect(hasSharedValue(n)).toBe(false);
    });
    expect(shared).toBeGreaterThan(0);
    const window = doc.data.nodes.find((n) => hasSharedValue(n))!;
    window.value = 'replaced';
    expect(valueCut(window)).toBeNull();
  });

  it('stores a window chain as about its unique text: the first window and each turn appended', () => {
    const doc = JSON.parse(small) as TraceDocument;
    // From the data: each window is the previous one trimmed plus the turn's message (`turn-N`).
    const windows = doc.data.nodes.filter((n) => n.name === 'context-window');
    const turns = doc.data.nodes.filter((n) => n.name.startsWith('turn-'));
    const unique = windows[0].value.length + turns.reduce((s, n) => s + n.value.length - 2 + 1, 0);
    const all = windows.reduce((s, n) => s + n.value.length, 0);
    expect(unique * 10).toBeLessThan(all); // what is there to gain

    const stats = shareVersionTexts(doc.data.nodes);
    expect(stats.valueChars).toBeGreaterThan(all * 0.95);
    expect(stats.storedChars).toBeGreaterThanOrEqual(unique * 0.9);
    expect(stats.storedChars).toBeLessThan(unique * 4);
    expect(stats.storedChars * 5).toBeLessThan(stats.valueChars);
  });

  it('keeps the values of a chain that branches, breaks, goes back, repeats itself, or holds short and non-string values', () => {
    const base = 'x'.repeat(600) + ' middle '.repeat(150);
    const chain: unknown[] = [
      `'${base}'`,
      `'${base} first branch'`,
      `'${base} second branch'`, // continues version 1, not version 2
      `'${base} second branch'`, // the same value again
      `'${'unrelated text '.repeat(100)}'`, // shares nothing
      `'${base.slice(500)} back again'`, // continues a version before the last
      '',
      42,
      null,
      { nested: base },
      `'${base.slice(700)} after others'`,
      `'${base.slice(700, 2000)}'`, // inside its previous version
      `[('a', '${base}'), ('b', 'x')]`,
      `[('a', '${base}'), ('b', 'x'), ('c', 'y')]`, // a list growing inside its brackets
      `[('b', 'x'), ('c', 'y'), ('d', '${base}')]`, // trimmed at the front
    ];
    const nodes = chain.map((value, i) => ({ name: 'w', class_name: null, version: i + 1, value }));
    const expected = JSON.parse(JSON.stringify(nodes));
    const stats = shareVersionTexts(nodes);
    expect(stats.shared).toBeGreaterThan(0);
    expect(JSON.parse(JSON.stringify(nodes))).toEqual(expected);
    expect(nodes.map((n) => n.value)).toEqual(chain);
    expect(structuredClone(nodes)).toEqual(expected);
  });

  it('keeps surrogate pairs whole where a version is cut or continued between their halves', () => {
    const head = 'a'.repeat(1500);
    const v1 = `'${head}😀${'b'.repeat(1500)}\ud83d'`; // ends with a lone high half
    const v2 = `'${v1.slice(1 + head.length + 1, -1)}\ude00 tail 😀'`; // starts with a low half; completes the pair
    const v3 = `'${v2.slice(1, -1)}🎉'`;
    const nodes = [v1, v2, v3].map((value, i) => ({ name: 'u', version: i + 1, value }));
    const stats = shareVersionTexts(nodes);
    expect(stats.shared).toBe(3);
    expect(nodes.map((n) => n.value)).toEqual([v1, v2, v3]);
    expect(JSON.stringify(nodes.map((n) => n.value))).toBe(JSON.stringify([v1, v2, v3]));
  });

  it("tells a value's first mark (not white space) from its parts, as the value read whole gives it", () => {
    const text = 'q'.repeat(1200);
    const chain = [
      `[('a', '${text}')]`,
      `[('a', '${text}'), ('b', 'c')]`,
      `  ${' '.repeat(1100)}{${text}`,
      `  ${' '.repeat(1100)}{${text}!`,
      `'${text}'`,
      `'${text} more'`,
      ' '.repeat(1500),
      `${' '.repeat(1500)} `,
    ];
    const nodes = chain.map((value, i) => ({ name: 'm', version: i + 1, value }));
    shareVersionTexts(nodes);
    expect(nodes.filter((n) => valueCut(n)).length).toBeGreaterThan(3);
    // From each value as written: its first character that is not white space.
    expect(nodes.map((n) => firstMark(n))).toEqual(chain.map((v) => v.trimStart().slice(0, 1)));
  });

  it('stores a plain value again when one is assigned', () => {
    const base = 'w'.repeat(2000);
    const nodes = [`'${base}'`, `'${base}!'`].map((value, i) => ({ name: 'a', version: i + 1, value }));
    shareVersionTexts(nodes);
    expect(hasSharedValue(nodes[1])).toBe(true);
    nodes[1].value = 'changed';
    expect(nodes[1].value).toBe('changed');
    expect(hasSharedValue(nodes[1])).toBe(false);
    expect(JSON.parse(JSON.stringify(nodes))[1].value).toBe('changed');
    expect(nodes[0].value).toBe(`'${base}'`);
  });

  it('reads the real traces (their stores grow inside a list) as JSON.parse does, sharing their chains', async () => {
    for (const file of smartcommentFiles()) {
      const text = readFileSync(file, 'utf8');
      const [doc] = await expectSameValues(text, 65536);
      expect(
        doc.data.nodes.some((n) => hasSharedValue(n)),
        file,
      ).toBe(true);
    }
  });

  it('holds a streamed long-context trace and its graph, every value read, in a fraction of its values (heap after GC, in a fresh Node)', () => {
    // A child with --expose-gc: the heap after GC with the document and its graph held (every
    // value read through the graph, as a search does), less the heap before reading.
    const script = `
      import { buildGraph } from './src/core/graph/index.ts';
      import { parseTraceChunks } from './src/core/trace/index.ts';
      import { syntheticText } from './bench/synthetic.ts';
      const heap = () => { gc(); gc(); return process.memoryUsage().heapUsed; };
      async function read() {
        const text = syntheticText({ targetBytes: 12_000_000, windowChars: 20_000, questions: 2 });
        const chars = JSON.parse(text).data.nodes.reduce((s, n) => s + n.value.length, 0);
        const bytes = new TextEncoder().encode(text);
        async function* chunks() { for (let i = 0; i < bytes.length; i += 65536) yield bytes.subarray(i, i + 65536); }
        const r = await parseTraceChunks(chunks(), { file: 'f.json' });
        const g = buildGraph(r.doc);
        let hits = 0;
        for (let i = 0; i < g.varValue.length; i++) if (/#\\d+'$/.test(g.varValue[i])) hits++;
        return { chars, r, g, hits };
      }
      const before = heap();
      const { chars, r, g, hits } = await read();
      console.log(JSON.stringify({ ok: r.ok && g.varValue.length > 0, chars, hits, doc: heap() - before }));
    `;
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: `${import.meta.dirname}/../..`, encoding: 'utf8' },
    );
    const { ok, chars, hits, doc } = JSON.parse(out.trim().split('\n').at(-1) as string);
    expect(ok).toBe(true);
    expect(hits).toBeGreaterThan(100); // the windows (each ends with its last turn's number) were read
    expect(chars).toBeGreaterThan(10_000_000); // one-byte strings: as many bytes if each were held
    // Each window held whole would take at least `chars` bytes (main's reader: 12.0 MB for 10.3 M chars).
    expect(doc).toBeLessThan(chars / 2);
  }, 120_000);
});
