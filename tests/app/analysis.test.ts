import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { Index } from 'flexsearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffLines } from '../../src/core/text/index.ts';
import { fullNodeIdOf } from '../../src/core/trace/index.ts';
import { isQuotaError, listCaseRows, type MemtraceDb, openDb } from '../../src/db/index.ts';
import { EngineService } from '../../workers/engine.ts';
import { ImportService } from '../../workers/import-service.ts';

const file = new URL('../../../shared/data/smartcomment/conv-26-fault-1.json', import.meta.url);
let db: MemtraceDb;
let svc: EngineService;
let traceId: string;

beforeAll(async () => {
  db = openDb(`analysis-${process.pid}`);
  const [r] = await new ImportService(db).importFiles(
    [{ blob: new Blob([readFileSync(file)]), name: 'f1.json', path: 'f1.json' }],
    {},
  );
  traceId = r.traceId!;
  svc = new EngineService(db);
});
afterAll(() => db.delete());

describe('EngineService over a stored trace', () => {
  it('opDetail(labelled op) lists inputs and outputs with full values', async () => {
    const [c] = await listCaseRows(db, { labelled: 'labelled' });
    const op = await svc.opDetail(traceId, c.labelOpId!);
    expect(op).not.toBeNull();
    expect(op!.inputs.length + op!.outputs.length).toBeGreaterThan(0);
    for (const v of [...op!.inputs, ...op!.outputs]) expect(typeof v.value).toBe('string');
  });

  it('varDetail lists the version chain of a memory unit and diffVersions diffs two versions', async () => {
    const d = await svc.varDetail(traceId, 'memory-store@2');
    expect(d!.versions.length).toBe(d!.variable.versionCount);
    expect(d!.versions.length).toBeGreaterThan(2);
    expect(d!.versions.map((v) => v.version).slice(0, 3)).toEqual([1, 2, 3]);
    const [, b, c] = d!.versions;
    const diff = await svc.diffVersions(traceId, b.id, c.id);
    expect(diff!.lines.filter((l) => l.kind === 'add').length).toBeGreaterThan(0);
    expect(diff!.lines.some((l) => l.kind === 'same' && l.text.includes('mem-1'))).toBe(true);
  });

  it('search finds a message by a word in it, full-text and regex, one group per memory unit', async () => {
    const text = await svc.search({ q: 'sunrise' });
    expect(text.groups.length).toBeGreaterThan(0);
    const first = text.groups[0].versions[0];
    expect(first.snippet.slice(first.at, first.at + first.length).toLowerCase()).toBe('sunrise');
    const re = await svc.search({ q: 'sun.ise', regex: true, traceIds: [traceId] });
    expect(re.groups.length).toBeGreaterThan(0);
    // Versions of one unit are one group, never two.
    const units = re.groups.map((g) => `${g.traceId} ${g.fullName}`);
    expect(new Set(units).size).toBe(units.length);
    const bad = await svc.search({ q: '(', regex: true });
    expect(bad.error).toBeTruthy();
  });

  it('words search finds what a words index over each whole value finds, in trace order', async () => {
    // The oracle: flexsearch (prefix tokenisation) over every value as written, one document per
    // version; the engine indexes each shared text once, and must find the same versions.
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    const nodes = (
      doc.data.nodes as {
        name: string;
        class_name?: string;
        version: number;
        value: unknown;
        category?: string;
      }[]
    ).filter((n) => n.category !== 'sentinel');
    const oracle = new Index({ tokenize: 'forward' });
    nodes.forEach((n, i) => {
      oracle.add(i, typeof n.value === 'string' ? n.value : JSON.stringify(n.value));
    });
    const idOf = (i: number) => fullNodeIdOf(nodes[i].name, nodes[i].class_name, nodes[i].version);
    for (const q of ['sunrise', 'sun', 'paint', 'caroline support group', 'me', 'lake camp', 'Melanie']) {
      const all = (oracle.search(q, { limit: nodes.length }) as number[]).sort((a, b) => a - b);
      expect(all.length, q).toBeGreaterThan(0);
      const got = await svc.search({ q, traceIds: [traceId] });
      const ids = got.groups.flatMap((g) => g.versions.map((v) => v.varId));
      // The first 200 in the trace's order.
      expect(new Set(ids), q).toEqual(new Set(all.slice(0, 200).map(idOf)));
      expect(got.truncated, q).toBe(all.length > 200);
      // Groups come in the order of their first version in the trace.
      const order = new Map(nodes.map((_, i) => [idOf(i), i]));
      const firstHit = got.groups.map((g) => Math.min(...g.versions.map((v) => order.get(v.varId)!)));
      expect(firstHit, q).toEqual([...firstHit].sort((a, b) => a - b));
    }
  });

  it("neighbourhood(seeds) lays out the seeds' surroundings with their ids; laneLayout covers the graph", async () => {
    const [c] = await listCaseRows(db, { labelled: 'labelled' });
    const s = await svc.neighbourhood(traceId, { ops: [c.labelOpId!, 'op-unknown'] }, { depth: 1 });
    expect(s.seeds.map((l) => s.ids[l])).toEqual([c.labelOpId]);
    expect(s.ids.length).toBe(s.nb.kind.length);
    expect(s.layout.x.length).toBe(s.ids.length);
    const lanes = await svc.laneLayout(traceId);
    expect(lanes.varId.length).toBeGreaterThan(0);
    expect(lanes.columns).toBeGreaterThan(0);
  });

  it('caseOverview lists evidence messages and the path to the answer including the labelled op', async () => {
    const cases = await listCaseRows(db, { labelled: 'labelled' });
    const c = cases.find((x) => x.errorType === 'RetrievalError') ?? cases[0];
    const ctx = await svc.caseOverview(traceId, c.queryId);
    expect(ctx.evidence.map((e) => e.id)).toEqual(c.evidenceIds.filter((id) => id));
    expect(ctx.labelOp?.id).toBe(c.labelOpId);
    expect(ctx.path.length).toBeGreaterThan(0);
  });
});

describe('diffLines', () => {
  it('marks added and deleted lines and keeps the rest', () => {
    const d = diffLines('a\nb\nc\nd', 'a\nc\nd\ne');
    expect(d.lines).toEqual([
      { kind: 'same', text: 'a' },
      { kind: 'del', text: 'b' },
      { kind: 'same', text: 'c' },
      { kind: 'same', text: 'd' },
      { kind: 'add', text: 'e' },
    ]);
    expect(d.truncated).toBe(false);
  });
  it('falls back to one replaced block past the edit cap', () => {
    const a = Array.from({ length: 50 }, (_, i) => `x${i}`).join('\n');
    const b = Array.from({ length: 50 }, (_, i) => `y${i}`).join('\n');
    const d = diffLines(a, b, 10);
    expect(d.truncated).toBe(true);
    expect(d.lines.filter((l) => l.kind === 'del').length).toBe(50);
  });
});

describe('isQuotaError', () => {
  it('sees a QuotaExceededError directly or wrapped by Dexie', () => {
    expect(isQuotaError(new DOMException('full', 'QuotaExceededError'))).toBe(true);
    expect(isQuotaError({ name: 'AbortError', inner: { name: 'QuotaExceededError' } })).toBe(true);
    expect(isQuotaError(new Error('other'))).toBe(false);
  });
});

describe('caseOverview on a long run', () => {
  it('lists the labelled op in execution order even when it lies further back than the walk from the judge', async () => {
    const { syntheticText } = await import('../../bench/synthetic.ts');
    const longDb = openDb(`analysis-long-${process.pid}`);
    try {
      const text = syntheticText({ targetBytes: 2e6, windowChars: 2_000, questions: 6 });
      const [r] = await new ImportService(longDb).importFiles(
        [{ blob: new Blob([text]), name: 'long.json', path: 'long.json' }],
        {},
      );
      const long = new EngineService(longDb);
      const [c] = await listCaseRows(longDb, { labelled: 'labelled' });
      const ctx = await long.caseOverview(r.traceId!, c.queryId);
      const ids = ctx.path.map((o) => o.id);
      expect(ids).toContain(c.labelOpId);
      const ranks = ctx.path.map((o) => o.rank);
      expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    } finally {
      await longDb.delete();
    }
  });
});
