/**
 * Which op kinds can cause which error type (core/labels `causeRefusal`): every label of the
 * real files and of the project's demo benchmark passes the rule, and the impossible pairs are
 * refused with a reason — also by label storage (`saveLabel`), whatever the form sent.
 */
import 'fake-indexeddb/auto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canCause, causeRefusal, opStage } from '../../src/core/labels/index.ts';
import { saveLabel } from '../../src/db/labels.ts';
import { storeTrace } from '../../src/db/repo.ts';
import { openDb } from '../../src/db/schema.ts';
import { tempDir, writeDemoBench } from '../e2e/project-data.ts';
import { SHARED_DATA } from '../helpers/shared-data.ts';

interface Raw {
  data: {
    operations: { op_id: string; op_name: string; category: string }[];
    annotations?: { final_error_type: string; final_op_id: string }[];
  };
}

/** (type, op) of every annotation of the files, read from the raw JSON. */
function labelled(files: string[]): { file: string; type: string; op: { name: string; category: string } }[] {
  return files.flatMap((file) => {
    const doc = JSON.parse(readFileSync(file, 'utf8')) as Raw;
    const ops = new Map(doc.data.operations.map((o) => [o.op_id, o]));
    return (doc.data.annotations ?? []).flatMap((a) => {
      const o = ops.get(a.final_op_id);
      return o ? [{ file, type: a.final_error_type, op: { name: o.op_name, category: o.category } }] : [];
    });
  });
}

const tmp = tempDir();
let benchFiles: string[] = [];
beforeAll(async () => {
  benchFiles = (await writeDemoBench(tmp.dir)).files;
}, 300_000);
afterAll(() => tmp.remove());

describe('op kinds and error types', () => {
  it('allows every label of the real files and of the demo benchmark', () => {
    const real = ['smartcomment', 'memeval-dev'].flatMap((d) =>
      readdirSync(join(SHARED_DATA, d))
        .filter((f) => f.endsWith('.json'))
        .map((f) => join(SHARED_DATA, d, f)),
    );
    const all = labelled([...real, ...benchFiles]);
    expect(all.length).toBeGreaterThan(200);
    expect(all.filter((l) => !canCause(l.type, l.op))).toEqual([]);
  });

  it('refuses a retrieval error at an op that writes memory, and any type at a judge', () => {
    const memorize = { name: 'memorize', category: 'extraction' };
    expect(causeRefusal('RetrievalError', memorize)).toMatch(
      /memorize \(kind extraction\) writes the memory.*not RetrievalError/,
    );
    expect(causeRefusal('ExtractionError', memorize)).toBeNull();
    expect(causeRefusal('DeletionError', { name: 'context-append', category: 'update' })).toBeNull();
    expect(causeRefusal('ResponseError', { name: 'memory-retrieval', category: 'retrieval' })).not.toBeNull();
    expect(
      causeRefusal('UpdateError', { name: 'question-answering', category: 'generation' }),
    ).not.toBeNull();
    expect(causeRefusal('ResponseError', { name: 'llm-judge', category: 'evaluation' })).toMatch(
      /none of the five/,
    );
  });

  it('reads a generic category from the op name, and allows every type when it cannot tell', () => {
    expect(opStage({ name: 'memory-update-decision', category: 'llm_call' })).toBe('memory');
    expect(opStage({ name: 'search_memory store', category: 'operation' })).toBe('retrieval');
    expect(opStage({ name: 'chat gpt-4o-mini', category: 'llm_call' })).toBe('unknown');
    expect(opStage({ name: 'episode-generation', category: 'llm_call' })).toBe('unknown');
    for (const t of ['ExtractionError', 'RetrievalError', 'ResponseError'])
      expect(canCause(t, { name: 'chat gpt-4o-mini', category: 'llm_call' })).toBe(true);
    // Other vocabularies are not judged here.
    expect(causeRefusal('MyOwnType', { name: 'llm-judge', category: 'evaluation' })).toBeNull();
  });

  it('label storage refuses the pair too, and stores nothing', async () => {
    const db = openDb(`op-kinds-${process.pid}`);
    const [file] = benchFiles;
    const { parseTraceText } = await import('../../src/core/trace/index.ts');
    const { listCases } = await import('../../src/core/cases/index.ts');
    const { buildGraph } = await import('../../src/core/graph/index.ts');
    const text = readFileSync(file, 'utf8');
    const parsed = parseTraceText(text, { file });
    if (!parsed.ok) throw new Error(file);
    const g = buildGraph(parsed.doc);
    const c = listCases(g)[0];
    await storeTrace(db, {
      meta: {
        id: g.doc.graph_id,
        file: 'x.json',
        path: 'x.json',
        system: null,
        projectId: null,
        createdAt: '',
        importedAt: 1,
        bytes: text.length,
        stats: {} as never,
        caseCount: 1,
        labelledCount: 0,
        warnings: [],
        warningCount: 0,
      },
      blob: new Blob([text]),
      cases: [
        {
          ...c,
          traceId: g.doc.graph_id,
          order: 0,
          system: null,
          errorType: null,
          labelOpId: null,
          labelSource: null,
          labelReason: null,
        } as never,
      ],
      labels: [],
    });
    const input = {
      traceId: g.doc.graph_id,
      queryId: c.queryId,
      errorType: 'RetrievalError',
      opId: 'op-1',
      reason: 'x',
      opKind: { name: 'fact-extraction', category: 'extraction' },
    };
    await expect(saveLabel(db, input)).rejects.toThrow(
      /label not saved: fact-extraction \(kind extraction\)/,
    );
    expect(await db.labels.where('graphId').equals(g.doc.graph_id).count()).toBe(0);
    await saveLabel(db, { ...input, errorType: 'ExtractionError' });
    expect(await db.labels.where('graphId').equals(g.doc.graph_id).count()).toBe(1);
    db.close();
  });
});
