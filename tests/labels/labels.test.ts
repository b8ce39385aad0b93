/** Label records: the file's own labels, annotations files (read / write), label choices, import classification. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  classifyIncoming,
  fileLabels,
  type LabelRecord,
  labelChoices,
  labelsFor,
  readLabelFile,
  toAnnotationsFile,
} from '../../src/core/labels/index.ts';
import { SMARTCOMMENT_DIR } from '../helpers/shared-data.ts';

const realText = readFileSync(join(SMARTCOMMENT_DIR, 'conv-26-fault-1.json'), 'utf8');
const real = JSON.parse(realText);

function person(
  annotator: string,
  q: string,
  errorType: string,
  opId: string,
  createdAt = '2026-03-01T10:00:00.000Z',
): LabelRecord {
  return {
    graphId: 'g',
    queryId: q,
    errorType,
    opId,
    reason: 'why',
    source: 'person',
    annotator,
    createdAt,
    origin: 'workbench',
  };
}

describe('fileLabels(doc)', () => {
  it('reads every annotation of a real file with its label_source, in file order', () => {
    const labels = fileLabels(real);
    const raw = real.data.annotations as Record<string, unknown>[];
    expect(labels).toHaveLength(raw.length);
    labels.forEach((l, i) => {
      expect(l).toMatchObject({
        graphId: real.graph_id,
        queryId: raw[i].query_id,
        errorType: raw[i].final_error_type,
        opId: raw[i].final_op_id,
        source: raw[i].label_source,
        annotator: '',
        origin: 'file',
      });
      expect(l.context?.query).toBe(raw[i].query);
    });
    expect(new Set(labels.map((l) => l.source))).toEqual(new Set(['fault-injection', 'counterfactual']));
  });
  it('takes annotator and created_at when present, `file` as the source when none, and skips malformed entries', () => {
    const doc = {
      graph_id: 'g',
      data: {
        annotations: [
          {
            query_id: 'q1',
            final_error_type: 'UpdateError',
            final_op_id: 'op',
            annotator: 'ann',
            created_at: '2025-01-01',
          },
          { query_id: 'q2', final_error_type: 7 },
          'junk',
          { query_id: 'q3', final_error_type: 'ResponseError' },
        ],
      },
    } as never;
    const labels = fileLabels(doc);
    expect(labels.map((l) => [l.queryId, l.annotator, l.source, l.createdAt, l.opId])).toEqual([
      ['q1', 'ann', 'file', '2025-01-01', 'op'],
      ['q3', '', 'file', '', null],
    ]);
  });
});

describe('annotations files', () => {
  it('writes the issue shape and reads it back unchanged', () => {
    const records = [
      {
        ...person('ann', 'query:a@1', 'ExtractionError', 'op-1'),
        context: { query: 'When?', golden_answers: ['May'] },
      },
      person('bob', 'query:b@1', 'ResponseError', 'op-2'),
    ];
    const file = toAnnotationsFile(records);
    expect(Object.keys(file.annotations[0]).slice(0, 8)).toEqual([
      'graph_id',
      'query_id',
      'final_op_id',
      'final_error_type',
      'reason',
      'annotator',
      'created_at',
      'label_source',
    ]);
    const back = readLabelFile(JSON.stringify(file), 'ann.json');
    expect(back.ok && back.kind).toBe('annotations');
    if (!back.ok) return;
    expect(back.labels).toEqual(records.map((r) => ({ ...r, origin: 'imported' })));
  });

  it("reads a graph file's annotations under its graph_id", () => {
    const r = readLabelFile(realText, 'conv-26-fault-1.json');
    expect(r.ok && r.kind).toBe('graph');
    if (r.ok) expect(r.labels).toEqual(fileLabels(real));
  });

  it.each([
    ['{"annotations": [', 'x.json:1:18: invalid JSON'],
    ['[1, 2]', 'x.json: expected an object with an "annotations" list'],
    ['{"annotations": {}}', 'x.json: annotations: expected a list'],
    ['{"foo": 1}', 'x.json: neither an annotations file'],
    ['{"data": {"annotations": []}}', 'x.json: graph_id: expected a non-empty string'],
    [
      '{"annotations": [{"graph_id": "g", "query_id": "q", "final_error_type": "UpdateError", "final_op_id": "o"}, {"graph_id": "g", "final_error_type": "UpdateError"}]}',
      'x.json: annotations[1].query_id:',
    ],
    [
      '{"annotations": [{"graph_id": "g", "query_id": "q", "final_error_type": 3}]}',
      'x.json: annotations[0].final_error_type:',
    ],
    [
      '{"graph_id": "g", "data": {"annotations": [{"query_id": ""}]}}',
      'x.json: data.annotations[0].query_id:',
    ],
  ])('a bad file %s gets one line naming the file and the place', (text, start) => {
    const r = readLabelFile(text, 'x.json');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message.startsWith(start)).toBe(true);
    expect(r.message).not.toContain('\n');
  });

  it('keeps hostile strings as plain text and never takes keys it does not know', () => {
    const text =
      '{"annotations": [{"__proto__": {"polluted": 1}, "graph_id": "<script>alert(1)</script>", "query_id": "q", "final_error_type": "__proto__", "final_op_id": null, "constructor": 5}]}';
    const r = readLabelFile(text, 'x.json');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.labels[0]).toMatchObject({
      graphId: '<script>alert(1)</script>',
      errorType: '__proto__',
      opId: null,
    });
    expect(Object.keys(r.labels[0])).not.toContain('constructor');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('label choices', () => {
  const file: LabelRecord = {
    ...person('', 'q1', 'UpdateError', 'op-f', ''),
    source: 'fault-injection',
    origin: 'file',
  };
  const file2: LabelRecord = { ...file, errorType: 'ResponseError', annotator: 'second' };
  const older = person('ann', 'q1', 'ExtractionError', 'op-1', '2026-03-01T10:00:00.000Z');
  const newer = person('ann', 'q1', 'RetrievalError', 'op-2', '2026-03-02T10:00:00.000Z');
  const adj: LabelRecord = { ...person('lead', 'q2', 'DeletionError', 'op-3'), source: 'adjudicated' };
  const all = [file, file2, newer, older, adj];

  it("`file` is each case's first annotation in the file; a source or annotator its newest record", () => {
    expect([...labelsFor(all, 'file').values()]).toEqual([file]);
    expect([...labelsFor(all, 'source:person').values()]).toEqual([newer]);
    expect([...labelsFor(all, 'annotator:ann').values()]).toEqual([newer]);
    expect([...labelsFor(all, 'source:adjudicated').values()]).toEqual([adj]);
    expect(labelsFor(all, 'source:none').size).toBe(0);
  });

  it('offers the file, every non-file source and every annotator, with case counts', () => {
    expect(labelChoices(all).map((c) => [c.value, c.cases])).toEqual([
      ['file', 1],
      ['source:adjudicated', 1],
      ['source:person', 1],
      ['annotator:ann', 1],
      ['annotator:fault-injection', 1],
      ['annotator:lead', 1],
      ['annotator:second', 1],
    ]);
  });
});

describe('classifyIncoming(stored, incoming)', () => {
  const mine = person('ann', 'q1', 'ExtractionError', 'op-1');
  it('sorts incoming labels into new, duplicate (same annotator, same verdict) and conflict (same annotator, other verdict)', () => {
    const incoming = [
      { ...mine, reason: 'said again', origin: 'imported' as const },
      { ...mine, errorType: 'UpdateError', origin: 'imported' as const },
      person('bob', 'q1', 'UpdateError', 'op-9'),
      person('bob', 'q1', 'UpdateError', 'op-9'),
    ];
    const r = classifyIncoming([mine], incoming);
    expect(r.map((x) => x.kind)).toEqual(['duplicate', 'conflict', 'new', 'duplicate']);
    expect(r[0].against).toEqual([mine]);
    expect(r[1].against).toEqual([mine]);
    expect(r[3].against).toEqual([incoming[2]]);
  });
});
