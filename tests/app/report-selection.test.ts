/**
 * The Report from what the engine knows (issue 33 item 5), on the real engine service and Dexie
 * (fake-indexeddb) with two real smartcomment files: a report over a selection of traces or
 * systems counts only their cases; a second report reuses the verdicts the first one stored
 * (no case is attributed again: the engine's `attributeCase` is counted); a current verdict
 * stored beforehand — one-case run or evaluation run — is used as it is, an older attributor's
 * is made again; the label source decides whether a person's correction or the file's label
 * stands for the verdict. Expected cases are read here from the files (core `listCases`), not
 * from the app's storage.
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ATTRIBUTOR_VERSION } from '../../src/core/attribution/index.ts';
import { listCases } from '../../src/core/cases/index.ts';
import { openTrace } from '../../src/core/graph/index.ts';
import { type MemtraceDb, openDb, saveLabel } from '../../src/db/index.ts';
import type { EvaluatedCase } from '../../src/db/runs.ts';
import { NO_LABELS } from '../../workers/api.ts';
import { EngineService } from '../../workers/engine.ts';
import { SMARTCOMMENT_DIR } from '../helpers/shared-data.ts';

const FAULTS = 'conv-26-fault-1.json';
const RAG = 'conv-26-rag-0.json';

/** A file's report cases as read from the file: failed or labelled questions, by query id. */
function reportable(name: string) {
  const opened = openTrace(readFileSync(join(SMARTCOMMENT_DIR, name), 'utf8'), { file: name });
  if (!opened.ok) throw new Error(`${name} does not open`);
  return listCases(opened.graph, { includePassed: true }).filter((c) => c.failed || c.label);
}
const faultCases = reportable(FAULTS);
const ragCases = reportable(RAG);

const dbs: MemtraceDb[] = [];
let n = 0;
afterEach(async () => {
  vi.restoreAllMocks();
  for (const db of dbs.splice(0)) await db.delete();
});

async function imported() {
  const db = openDb(`report-selection-${process.pid}-${n++}`);
  dbs.push(db);
  const engine = new EngineService(db);
  const files = [FAULTS, RAG].map((f) => ({
    blob: new Blob([readFileSync(join(SMARTCOMMENT_DIR, f))]),
    name: f,
    path: f,
  }));
  const [a, b] = await engine.importFiles(files, {});
  const attributed: string[] = [];
  const attribute = engine.attributeCase.bind(engine);
  // Counts every case the engine attributes (the report's only way to make a verdict).
  vi.spyOn(engine, 'attributeCase').mockImplementation((traceId, queryId) => {
    attributed.push(`${traceId}|${queryId}`);
    return attribute(traceId, queryId);
  });
  return { db, engine, faults: a.traceId!, rag: b.traceId!, attributed };
}

const queries = (row: { result: { case_list: { trace_id: string; query_id: string }[] } } | null) =>
  (row?.result.case_list ?? []).map((c) => `${c.trace_id}|${c.query_id}`).sort();
const keysOf = (traceId: string, cases: { queryId: string }[]) =>
  cases.map((c) => `${traceId}|${c.queryId}`).sort();

/** A current evidence-flow verdict as the engine would have stored it, with a reason no attributor writes. */
const planted = (
  traceId: string,
  queryId: string,
  reason: string,
  version: string | null = ATTRIBUTOR_VERSION,
) =>
  ({
    method: 'evidence',
    trace_id: traceId,
    query_id: queryId,
    question: 'q?',
    system: null,
    label_type: '',
    label_op: null,
    predicted_type: 'RetrievalError',
    predicted_op: null,
    input_tokens: 0,
    output_tokens: 0,
    seconds: 0,
    reason,
    path: [],
    grounds: null,
    attributor_version: version,
  }) satisfies EvaluatedCase;

describe('a report over a selection', () => {
  it('counts only the chosen traces, or the traces of the chosen systems', async () => {
    expect(faultCases.length).toBeGreaterThan(4);
    expect(ragCases.length).toBeGreaterThan(4);
    const { db, engine, faults, rag } = await imported();
    const one = await engine.buildReport({ traceIds: [faults], source: { kind: 'evidence' } }, () => {});
    expect(queries(one)).toEqual(keysOf(faults, faultCases));
    expect(one?.result.cases).toBe(faultCases.length);

    const ragSystem = (await db.traces.get(rag))?.system ?? 'unknown';
    expect((await db.traces.get(faults))?.system ?? 'unknown').not.toBe(ragSystem);
    const bySystem = await engine.buildReport(
      { traceIds: [faults, rag], systems: [ragSystem], source: { kind: 'evidence' } },
      () => {},
    );
    expect(queries(bySystem)).toEqual(keysOf(rag, ragCases));
    expect(bySystem?.parameters.systems).toEqual([ragSystem]);
  }, 120_000);
});

describe('a report reuses the verdicts the engine holds', () => {
  it('attributes every case once; a second report attributes none and shows the same counts', async () => {
    const { db, engine, faults, attributed } = await imported();
    const request = { traceIds: [faults], source: { kind: 'evidence' as const }, labels: NO_LABELS };
    const first = await engine.buildReport(request, () => {});
    expect(attributed.sort()).toEqual(keysOf(faults, faultCases));
    expect(first?.verdicts).toEqual({ held: 0, attributed: faultCases.length, labels: 0, imported: 0 });
    const stored = (await db.runs.toArray()).filter((r) => r.kind === 'attribution');
    expect(stored).toHaveLength(faultCases.length);

    attributed.length = 0;
    const progress: { done: number; held: number }[] = [];
    const second = await engine.buildReport(request, (p) => progress.push({ done: p.done, held: p.held }));
    expect(attributed).toEqual([]);
    expect(second?.verdicts).toEqual({ held: faultCases.length, attributed: 0, labels: 0, imported: 0 });
    expect(progress.at(-1)).toEqual({ done: faultCases.length, held: faultCases.length });
    expect((await db.runs.toArray()).filter((r) => r.kind === 'attribution')).toHaveLength(faultCases.length);
    expect(second?.result.by_error_type).toEqual(first?.result.by_error_type);
    expect(queries(second)).toEqual(queries(first));
  }, 120_000);

  it("uses a current verdict stored beforehand as it is, and makes an older attributor's again", async () => {
    const { db, engine, faults, attributed } = await imported();
    const [a, b, c] = faultCases.map((x) => x.queryId);
    const row = (result: EvaluatedCase) => ({
      traceId: faults,
      queryId: result.query_id,
      kind: 'attribution',
      method: 'evidence',
      status: 'done',
      createdAt: 1,
      result,
    });
    await db.runs.add(row(planted(faults, a, 'a verdict stored beforehand')));
    await db.runs.add(row(planted(faults, b, 'an older attributor said so', 'evidence-flow@0')));
    await db.runs.add({
      traceId: '*evaluation',
      queryId: '',
      kind: 'evaluation',
      method: 'evidence',
      status: 'done',
      createdAt: 2,
      parameters: { traceIds: [faults], engine: 'evidence' },
      finishedAt: 3,
      result: { summary: {}, cases: [planted(faults, c, 'an evaluation run held it')], missing: [] },
      error: null,
    });
    const report = await engine.buildReport(
      { traceIds: [faults], source: { kind: 'evidence' }, labels: NO_LABELS },
      () => {},
    );
    const shown = (q: string) => report?.result.case_list.find((x) => x.query_id === q);
    expect(shown(a)).toMatchObject({ reason: 'a verdict stored beforehand', error_type: 'RetrievalError' });
    expect(shown(c)).toMatchObject({ reason: 'an evaluation run held it', error_type: 'RetrievalError' });
    expect(shown(b)?.reason).not.toBe('an older attributor said so');
    const expected = keysOf(faults, faultCases).filter(
      (k) => k !== `${faults}|${a}` && k !== `${faults}|${c}`,
    );
    expect(attributed.sort()).toEqual(expected);
    expect(report?.verdicts).toMatchObject({ held: 2, attributed: faultCases.length - 2 });
  }, 120_000);
});

describe("the report's label source", () => {
  it("takes a person's correction (people), the file's labels (file), or no label (none)", async () => {
    const { db, engine, faults } = await imported();
    const corrected = faultCases[0];
    await saveLabel(db, {
      traceId: faults,
      queryId: corrected.queryId,
      errorType: 'ExtractionError',
      opId: 'op-by-person',
      reason: 'corrected by a person',
      decision: 'corrected',
    });
    const build = (labels?: string) =>
      engine.buildReport({ traceIds: [faults], source: { kind: 'evidence' }, labels }, () => {});
    const shown = (r: Awaited<ReturnType<typeof build>>) =>
      r?.result.case_list.find((x) => x.query_id === corrected.queryId);

    const people = await build();
    expect(shown(people)).toMatchObject({ error_type: 'ExtractionError', method: 'label:person' });
    expect(people?.verdicts?.labels).toBe(1);

    const none = await build(NO_LABELS);
    expect(shown(none)?.method).toBe('evidence');
    expect(none?.verdicts?.labels).toBe(0);

    // The file's own labels: every case the file labels takes its label (read from the file here).
    const fileLabelled = faultCases.filter((x) => x.label);
    expect(fileLabelled.length).toBeGreaterThan(0);
    const file = await build('file');
    expect(file?.verdicts?.labels).toBe(fileLabelled.length);
    for (const x of fileLabelled)
      expect(file?.result.case_list.find((y) => y.query_id === x.queryId)?.error_type).toBe(
        x.label?.errorType,
      );

    await expect(build('nonsense')).rejects.toThrow('unknown label source: nonsense');
  }, 120_000);
});
