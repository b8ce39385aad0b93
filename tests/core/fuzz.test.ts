/**
 * Thousands of random corruptions of a valid file: the importer must always return
 * a graph or structured errors — never throw, never report an internal failure —
 * and whatever loads must survive every downstream query.
 */
import { describe, expect, it } from 'vitest';
import { listCases } from '../../src/core/cases/index.ts';
import {
  closure,
  openTrace,
  opStructure,
  renderObsLog,
  renderVariableView,
  searchValues,
} from '../../src/core/graph/index.ts';
import { seededRandom } from '../../src/core/random.ts';
import { traceStats } from '../../src/core/stats/index.ts';
import { decodeUtf8, exportSmartcomment, tooDeepAt } from '../../src/core/trace/index.ts';
import { DocBuilder } from '../helpers/doc-builder.ts';

function validDoc() {
  const b = new DocBuilder();
  const msgs = [0, 1, 2].map((i) =>
    b.variable(`conv:D1:${i}`, `'message ${i} <script>alert(1)</script>'`, { category: 'message' }),
  );
  let store = b.variable('memory-store', '{}', { category: 'memory_store' });
  for (const [i, m] of msgs.entries()) {
    const facts = b.variable(`facts-${i}`, `['fact ${i}']`, { category: 'facts' });
    b.op('fact-extraction', 'extraction', [m], [facts]);
    const next = b.variable('memory-store', `{'${i}': 'fact ${i}'}`, {
      category: 'memory_store',
      version: i + 2,
    });
    b.op('memory-update', 'update', [store, facts], [next]);
    store = next;
  }
  const j = b.judged('q1', 'What is fact 1?', 'unknown', ['fact 1'], 0, ['conv:D1:1']);
  b.doc.data.annotations = [
    { query_id: j.query, final_error_type: 'RetrievalError', final_op_id: b.doc.data.operations[1].op_id },
  ];
  return b.doc;
}

type Mutable = Record<string, unknown> | unknown[];
const NASTY: unknown[] = [
  null,
  7,
  -1,
  1.5,
  true,
  '',
  'x'.repeat(200_000),
  [],
  {},
  { __proto__: 1 },
  '<img src=x onerror=alert(1)>',
  '__proto__',
  'constructor',
  '\u0000\ud800',
  [1, [2, [3]]],
];

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)];
}

/** Picks a random container inside the value, with its keys. */
function randomContainer(r: () => number, root: Mutable): Mutable {
  let cur: Mutable = root;
  for (let depth = 0; depth < 6; depth++) {
    const keys = Object.keys(cur);
    if (keys.length === 0 || r() < 0.25) break;
    const next = (cur as Record<string, unknown>)[pick(r, keys)];
    if (typeof next !== 'object' || next === null) break;
    cur = next as Mutable;
  }
  return cur;
}

function mutateStructure(r: () => number, doc: Mutable): string {
  const n = 1 + Math.floor(r() * 3);
  for (let i = 0; i < n; i++) {
    const c = randomContainer(r, doc) as Record<string, unknown>;
    const keys = Object.keys(c);
    const k = keys.length ? pick(r, keys) : '__proto__';
    const what = r();
    if (what < 0.3) delete c[k];
    else if (what < 0.7) c[k] = structuredClone(pick(r, NASTY));
    else if (what < 0.85)
      Object.defineProperty(c, '__proto__', {
        value: { polluted: true },
        enumerable: true,
        configurable: true,
        writable: true,
      });
    else c[k] = structuredClone(c[pick(r, keys.length ? keys : ['x'])] ?? null);
  }
  return JSON.stringify(doc);
}

function mutateText(r: () => number, text: string): string {
  const what = r();
  if (what < 0.3) return text.slice(0, Math.floor(r() * text.length));
  const chars = text.split('');
  const flips = 1 + Math.floor(r() * 4);
  for (let i = 0; i < flips; i++) {
    const at = Math.floor(r() * chars.length);
    if (what < 0.7) chars[at] = String.fromCharCode(Math.floor(r() * 128));
    else chars.splice(at, 1);
  }
  return chars.join('');
}

function exercise(text: string, label: string) {
  const r = openTrace(text, { file: label });
  for (const issue of r.issues) {
    expect(issue.file).toBe(label);
    expect(issue.code).not.toBe('internal');
    expect(typeof issue.message).toBe('string');
  }
  if (!r.ok) {
    expect(r.issues.some((i) => i.severity === 'error')).toBe(true);
    return 'rejected';
  }
  const g = r.graph;
  traceStats(g);
  listCases(g);
  renderObsLog(g);
  searchValues(g, 'fact', {});
  for (let v = 0; v < g.varId.length; v++) renderVariableView(g, v, { mode: 'full' });
  for (let o = 0; o < g.opId.length; o++) opStructure(g, o);
  closure(g, [0], { direction: 'downstream' });
  JSON.parse(exportSmartcomment(g.doc));
  return 'loaded';
}

describe('fuzzing the importer', () => {
  it('3,000 structural corruptions (deleted keys, wrong types, __proto__ keys, huge strings) never throw', () => {
    const r = seededRandom(1);
    const outcomes = { loaded: 0, rejected: 0 };
    for (let i = 0; i < 3000; i++)
      outcomes[exercise(mutateStructure(r, validDoc() as unknown as Mutable), `s${i}.json`)]++;
    // Both outcomes must actually occur, or the fuzzer is not exercising anything.
    expect(outcomes.loaded).toBeGreaterThan(100);
    expect(outcomes.rejected).toBeGreaterThan(100);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
  it('3,000 byte-level corruptions (truncation, flips, deletions) never throw', () => {
    const r = seededRandom(2);
    const text = JSON.stringify(validDoc(), null, 1);
    const outcomes = { loaded: 0, rejected: 0 };
    for (let i = 0; i < 3000; i++) outcomes[exercise(mutateText(r, text), `b${i}.json`)]++;
    expect(outcomes.rejected).toBeGreaterThan(1000);
    expect(outcomes.loaded).toBeGreaterThan(50);
  });
});

/** A value nested `depth` lists deep, as JSON text (built as text: building it as objects is fine, printing is not). */
const nestedText = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

describe('fuzzing hostile shapes', () => {
  it('deep nesting in a value, a category, an op name or metadata is a clear error, never a stack overflow', () => {
    const r = seededRandom(3);
    const places: [string, string][] = [
      ['nodes', 'value'],
      ['nodes', 'category'],
      ['operations', 'op_name'],
      ['operations', 'metadata'],
      ['edges', 'comment'],
    ];
    for (let i = 0; i < 40; i++) {
      const [list, key] = places[i % places.length];
      const depth = 300 + Math.floor(r() * 20_000);
      const doc = validDoc() as unknown as { data: Record<string, Record<string, unknown>[]> };
      const at = Math.floor(r() * doc.data[list].length);
      doc.data[list][at][key] = '__DEEP__';
      const text = JSON.stringify(doc).replace('"__DEEP__"', nestedText(depth));
      const o = openTrace(text, { file: 'deep.json' });
      expect(o.ok).toBe(false);
      const issue = o.issues.find((x) => x.code === 'too-deep');
      expect(issue?.path).toBe(`data.${list}[${at}].${key}`);
      expect(issue?.message).toMatch(/nests more than 256 levels deep/);
    }
    // Shallow nesting still loads (and exports).
    const doc = validDoc() as unknown as { data: { nodes: Record<string, unknown>[] } };
    doc.data.nodes[0].metadata = JSON.parse(`{"a": ${nestedText(200)}}`);
    expect(exercise(JSON.stringify(doc), 'shallow.json')).toBe('loaded');
  });

  it('deep nesting anywhere else in a smartcomment file (top level, data, annotations) is refused by place, never exported', () => {
    const r = seededRandom(5);
    const places: [string, (doc: Record<string, unknown>) => void, string][] = [
      ['$.metadata', (d) => (d.metadata = '__DEEP__'), 'metadata'],
      ['$.extra', (d) => (d.extra = '__DEEP__'), 'extra'],
      ['data.extra', (d) => ((d.data as Record<string, unknown>).extra = '__DEEP__'), 'extra'],
      [
        'data.annotations',
        (d) => ((d.data as Record<string, unknown>).annotations = '__DEEP__'),
        'annotations',
      ],
      [
        'data.annotations[1]',
        (d) => (d.data as { annotations: unknown[] }).annotations.push('__DEEP__'),
        'annotation',
      ],
      [
        'data.annotations[0].reason',
        (d) => ((d.data as { annotations: Record<string, unknown>[] }).annotations[0].reason = '__DEEP__'),
        'reason',
      ],
    ];
    for (let i = 0; i < 36; i++) {
      const [path, put, name] = places[i % places.length];
      const depth = 257 + Math.floor(r() * 50_000);
      const doc = validDoc() as unknown as Record<string, unknown>;
      put(doc);
      // Lists or objects, alternately (an annotation that is no object: always a list).
      const list = i % 2 === 1 || path === 'data.annotations[1]';
      const deep = list ? nestedText(depth) : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
      const text = JSON.stringify(doc).replace('"__DEEP__"', deep);
      const o = openTrace(text, { file: 'deep.json' });
      expect(o.ok, `${path} at ${depth}`).toBe(false);
      // A list of lists as `annotations` is a list whose first annotation is too deep.
      const [at, what] =
        path === 'data.annotations' && list ? ['data.annotations[0]', 'annotation'] : [path, name];
      const issue = o.issues.find((x) => x.code === 'too-deep');
      expect(issue?.path).toBe(at);
      expect(issue?.message).toBe(
        `${what} nests more than 256 levels deep; such a file cannot be shown or exported`,
      );
    }
  });

  it('the nesting check walks without recursion: a million levels, and the exact place past the limit', () => {
    const million = JSON.parse(nestedText(1_000_000));
    expect(tooDeepAt(million, 256)).toEqual(Array(256).fill(0));
    const wide = JSON.parse(`{"a": [1, {"b": ${nestedText(3)}}], "c": {"d": 2}}`);
    // {…} is level 1, the list level 2, its object 3, then three lists: 6 levels in all.
    expect(tooDeepAt(wide, 6)).toBeNull();
    expect(tooDeepAt(wide, 5)).toEqual(['a', 1, 'b', 0, 0]);
    expect(tooDeepAt('text', 0)).toBeNull();
  });

  it('graph_id missing, null, empty, a number, an object, a list or huge is refused with its place', () => {
    for (const bad of [undefined, null, '', '   ', 3, {}, [], ['g'], 'g'.repeat(513), 'a\u0000b']) {
      const doc = validDoc() as unknown as Record<string, unknown>;
      if (bad === undefined) delete doc.graph_id;
      else doc.graph_id = bad;
      const o = openTrace(JSON.stringify(doc), { file: 'g.json' });
      expect(o.ok, JSON.stringify(bad)).toBe(false);
      const issue = o.issues.find((x) => x.path === '$.graph_id');
      expect(issue?.severity).toBe('error');
      expect(issue?.message).toMatch(
        /^graph_id (is missing|is null|is empty|is |holds a control character).*; expected a non-empty string/,
      );
    }
    const odd = validDoc() as unknown as Record<string, unknown>;
    odd.graph_id = '__proto__'; // a strange but valid id: loads (and is stored as an ordinary key)
    expect(openTrace(JSON.stringify(odd), { file: 'proto.json' }).ok).toBe(true);
  });

  it('invalid UTF-8 anywhere is reported with the offset of the first bad byte, and matches TextDecoder', () => {
    const r = seededRandom(4);
    const good = new TextEncoder().encode(JSON.stringify(validDoc()));
    const fatal = new TextDecoder('utf-8', { fatal: true });
    for (let i = 0; i < 2000; i++) {
      const bytes = good.slice();
      const at = Math.floor(r() * bytes.length);
      const bad = [0x80, 0xbf, 0xc0, 0xc1, 0xe0, 0xed, 0xf4, 0xf5, 0xff][Math.floor(r() * 9)];
      bytes[at] = bad;
      const d = decodeUtf8(bytes);
      let valid = true;
      try {
        fatal.decode(bytes);
      } catch {
        valid = false;
      }
      expect(d.ok).toBe(valid);
      if (!d.ok) {
        // Everything before the reported byte is well-formed, the sequence starting there is not.
        expect(() => fatal.decode(bytes.subarray(0, d.offset))).not.toThrow();
        expect(d.offset).toBeLessThanOrEqual(at);
        expect(d.message).toMatch(new RegExp(`^not valid UTF-8: byte ${d.offset} \\(line 1, 0x`));
      }
    }
  });
});
