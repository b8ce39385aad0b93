/**
 * Labelling as a team in Debian's Chromium, three browser profiles with their own IndexedDB:
 * ann and bob each label the same three failed cases through the annotation queue (blind,
 * keyboard flow), export an annotations file; a third profile imports both (and sees a
 * re-import as duplicates, a changed label as a conflict), reads the agreement — checked
 * against values worked out by hand from the labels chosen here — adjudicates a disputed
 * case, scores Evaluation against the adjudicated label, and finds it all after a reload.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DATA, openApp, type Session } from './harness.ts';

const FILE = join(DATA, 'conv-26-fault-1.json');
const tmp = mkdtempSync(join(tmpdir(), 'memtrace-team-'));
const sessions: Session[] = [];
afterAll(async () => {
  for (const s of sessions) await s.close();
});

async function profile(): Promise<Session> {
  const s = await openApp();
  sessions.push(s);
  await s.page.getByTestId('empty-state').waitFor();
  await s.page.setInputFiles('[data-testid=file-input]', [FILE]);
  await s.page.locator('[data-testid=trace-row]').first().waitFor({ timeout: 60_000 });
  return s;
}

async function setAnnotator(s: Session, name: string) {
  await s.page.goto(`${s.url}#/settings`);
  await s.page.getByTestId('annotator-name').fill(name);
  await s.page.getByTestId('annotator-save').click();
  await s.page.getByTestId('annotator-saved').waitFor();
}

/**
 * What one person picks per queued case: the key of the type (1–5) and which op of the case
 * path — the `nth` of the ops of that kind (category), one that can cause the type.
 */
type Pick = { key: string; kind: string; nth: number; reason: string };
const TYPES = ['ExtractionError', 'UpdateError', 'DeletionError', 'RetrievalError', 'ResponseError'];

/** Labels the first cases of a blind queue with the keyboard; returns (queryId, opId, type) per case. */
async function labelInQueue(s: Session, picks: Pick[]) {
  const { page } = s;
  await page.goto(`${s.url}#/labels`);
  await page.getByTestId('queue-mode').selectOption('mine');
  await page.getByTestId('queue-start-blind').check();
  await page.getByTestId('queue-start').click();
  await page.getByTestId('queue-bar').waitFor();
  const out: { queryId: string; opId: string; type: string }[] = [];
  for (const [i, p] of picks.entries()) {
    await page.waitForFunction(
      (n) => document.querySelector('[data-testid=queue-position]')?.textContent?.startsWith(`${n} /`),
      i + 1,
    );
    // blind: no engine panel, no file label, no one else's labels
    await page.getByTestId('blind-note').waitFor();
    expect(await page.getByTestId('attribution').count()).toBe(0);
    expect(await page.getByTestId('case-label').count()).toBe(0);
    const queryId = decodeURIComponent(/\/case\/([^?]+)/.exec(page.url())![1]);
    // this case's path, not the previous one's while it loads
    await page.locator('[data-testid=case-path]:not([data-stale])').waitFor();
    const op = page
      .locator('[data-testid=case-path] a')
      .filter({ has: page.locator('span.tag', { hasText: new RegExp(`^${p.kind}$`) }) })
      .nth(p.nth);
    await op.waitFor();
    const opId = (await op.getAttribute('title'))!;
    await op.click();
    await page.waitForFunction((id) => location.hash.includes(`op=${encodeURIComponent(id)}`), opId);
    await page.getByTestId('queue-op-name').waitFor();
    await page.locator('[data-testid=case-path] [aria-current=true]').focus();
    await page.keyboard.press(p.key);
    await page.keyboard.press('r');
    await page.keyboard.type(p.reason);
    await page.keyboard.press('Enter');
    out.push({ queryId, opId, type: TYPES[Number(p.key) - 1] });
    // saved: the queue moved on to the next case
    await page.waitForFunction(
      (n) => document.querySelector('[data-testid=queue-position]')?.textContent?.startsWith(`${n} /`),
      i + 2,
    );
  }
  return out;
}

async function exportTo(s: Session, name: string): Promise<string> {
  await s.page.goto(`${s.url}#/labels`);
  const [dl] = await Promise.all([
    s.page.waitForEvent('download'),
    s.page.getByTestId('export-labels').click(),
  ]);
  const path = join(tmp, name);
  await dl.saveAs(path);
  return path;
}

let annLabels: { queryId: string; opId: string; type: string }[];
let bobLabels: { queryId: string; opId: string; type: string }[];
let annFile: string;
let bobFile: string;
let lead: Session;

describe('team labelling in three browser profiles', () => {
  it('ann labels three cases blind with the keyboard and exports them', async () => {
    const ann = await profile();
    await setAnnotator(ann, 'ann');
    annLabels = await labelInQueue(ann, [
      { key: '5', kind: 'generation', nth: 0, reason: 'the answer ignored the memory' },
      { key: '4', kind: 'retrieval', nth: 0, reason: 'not retrieved' },
      { key: '1', kind: 'extraction', nth: 0, reason: 'never extracted' },
    ]);
    // her labels survive a reload, signed with her name
    await ann.page.goto(
      `${ann.url}#/t/${encodeURIComponent(JSON.parse(readFileSync(FILE, 'utf8')).graph_id)}/case/${encodeURIComponent(annLabels[0].queryId)}`,
    );
    await ann.page.reload();
    const mine = ann.page.locator('[data-testid=label-record][data-annotator=ann]');
    await mine.waitFor();
    expect(await mine.getAttribute('data-type')).toBe('ResponseError');
    // a person's label can be deleted and the deletion undone; the file's cannot be deleted
    await mine.getByTestId('label-delete').click();
    await ann.page.getByTestId('label-undo').waitFor();
    expect(await mine.count()).toBe(0);
    await ann.page.getByTestId('label-undo').click();
    await mine.waitFor();
    expect(
      await ann.page
        .locator('[data-testid=label-record][data-origin=file] [data-testid=label-delete]')
        .count(),
    ).toBe(0);
    annFile = await exportTo(ann, 'ann.json');
    const file = JSON.parse(readFileSync(annFile, 'utf8'));
    expect(
      file.annotations.map(
        (a: {
          query_id: string;
          final_op_id: string;
          final_error_type: string;
          annotator: string;
          label_source: string;
        }) => [a.query_id, a.final_op_id, a.final_error_type, a.annotator, a.label_source],
      ),
    ).toEqual(annLabels.map((l) => [l.queryId, l.opId, l.type, 'ann', 'person']));
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
    expect(ann.errors).toEqual([]);
  }, 240_000);

  it('bob labels the same cases in his own profile: same type and op, other type, same type at another op', async () => {
    const bob = await profile();
    await setAnnotator(bob, 'bob');
    bobLabels = await labelInQueue(bob, [
      { key: '5', kind: 'generation', nth: 0, reason: 'agree' },
      { key: '1', kind: 'extraction', nth: 0, reason: 'never extracted' },
      { key: '1', kind: 'extraction', nth: 1, reason: 'an earlier extraction' },
    ]);
    expect(bobLabels.map((l) => l.queryId)).toEqual(annLabels.map((l) => l.queryId));
    expect(bobLabels[2].opId).not.toBe(annLabels[2].opId);
    bobFile = await exportTo(bob, 'bob.json');
    expect(JSON.parse(readFileSync(bobFile, 'utf8')).annotations).toHaveLength(3);
    expect(bob.errors).toEqual([]);
  }, 240_000);

  it('a third profile imports both files, sees duplicates and conflicts, and the agreement worked out by hand', async () => {
    lead = await profile();
    await setAnnotator(lead, 'lead');
    const { page } = lead;
    await page.goto(`${lead.url}#/labels`);
    await page.setInputFiles('[data-testid=import-labels]', [annFile, bobFile]);
    await page.getByTestId('import-plan').waitFor();
    expect(await page.getByTestId('plan-new').allInnerTexts()).toEqual(['3', '3']);
    await page.getByTestId('import-confirm').click();
    await page.getByTestId('import-done').waitFor();
    expect(await page.getByTestId('import-done').innerText()).toContain('6 label(s)');
    // the same file again: three duplicates, nothing new; a changed label: a conflict, kept only if ticked
    const changed = JSON.parse(readFileSync(annFile, 'utf8'));
    changed.annotations[0].final_error_type = 'UpdateError';
    const changedFile = join(tmp, 'ann-changed.json');
    writeFileSync(changedFile, JSON.stringify(changed));
    await page.setInputFiles('[data-testid=import-labels]', [annFile, changedFile]);
    await page.getByTestId('import-plan').waitFor();
    expect(await page.getByTestId('plan-new').allInnerTexts()).toEqual(['0', '0']);
    expect(await page.getByTestId('plan-duplicate').allInnerTexts()).toEqual(['3', '2']);
    expect(await page.getByTestId('plan-conflict').allInnerTexts()).toEqual(['0', '1']);
    expect(await page.getByTestId('plan-conflict-item').innerText()).toContain('UpdateError');
    await page.getByTestId('import-confirm').click();
    expect(await page.getByTestId('import-done').innerText()).toContain('0 label(s)');
    // a broken file: one line naming it and the place
    const broken = join(tmp, 'broken.json');
    writeFileSync(broken, '{"annotations": [{"graph_id": "g", "query_id": 7}]}');
    await page.setInputFiles('[data-testid=import-labels]', [broken]);
    await page.getByTestId('import-problem').waitFor();
    expect(await page.getByTestId('import-problem').innerText()).toMatch(
      /^broken\.json: annotations\[0\]\.query_id: /,
    );

    // Agreement between ann and bob only (the file's labels left out); a retrieval op cannot
    // cause an ExtractionError, so the type disagreement is at other ops too:
    //   ann [Resp, Ret, Ext] × bob [Resp, Ext, Ext]: type differs on 1 of 3, op on 2 of 3;
    //   Cohen pₒ 2/3, pₑ (1·1 + 1·0 + 1·2)/9 = 1/3 → κ 0.500;
    //   Fleiss: Pᵢ 1, 0, 1 → P̄ 2/3; classes 2/6, 1/6, 3/6 → P̄ₑ 14/36 → κ (24 − 14)/(36 − 14) = 5/11.
    await page.getByTestId('agreement-files').uncheck();
    const row = page.locator('[data-testid=agreement-pair][data-a=ann][data-b=bob]');
    await row.waitFor();
    expect(await row.getByTestId('pair-n').innerText()).toBe('3');
    expect(await row.getByTestId('pair-type').innerText()).toBe('33.3 %');
    expect(await row.getByTestId('pair-op').innerText()).toBe('66.7 %');
    expect(await row.getByTestId('pair-kappa').innerText()).toBe('0.500');
    expect(await page.getByTestId('fleiss-kappa').innerText()).toBe((5 / 11).toFixed(3));
    expect(
      await page
        .getByTestId('disputed-case')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-query'))),
    ).toEqual([annLabels[1].queryId, annLabels[2].queryId].sort());
    // the file's labels take part as annotators when asked
    await page.getByTestId('agreement-files').check();
    await page.locator('[data-testid=agreement-pair][data-a=ann][data-b=counterfactual]').waitFor();
    expect(lead.errors).toEqual([]);
  }, 240_000);

  it('adjudication writes a final label Evaluation scores against, and everything survives a reload', async () => {
    const { page } = lead;
    await page.getByTestId('agreement-files').uncheck();
    const disputed = page.locator(`[data-testid=disputed-case][data-query="${annLabels[1].queryId}"]`);
    await disputed
      .locator('[data-testid=disputed-label][data-annotator=ann] [data-testid=adjudicate-take]')
      .click();
    await disputed.getByTestId('adjudicated').waitFor();
    expect(await disputed.getByTestId('adjudicated').innerText()).toBe('adjudicated: RetrievalError by lead');
    // the adjudicated label is not one more opinion: the numbers do not move
    expect(
      await page
        .locator('[data-testid=agreement-pair][data-a=ann][data-b=bob] [data-testid=pair-kappa]')
        .innerText(),
    ).toBe('0.500');

    await page.goto(`${lead.url}#/eval?labels=source:adjudicated`);
    await page.getByTestId('eval-run').click();
    await page.locator('[data-testid=eval-status][data-status=done]').waitFor({ timeout: 120_000 });
    expect(await page.getByTestId('metric-total').innerText()).toBe('1');
    expect(await page.getByTestId('eval-cases').innerText()).toContain('RetrievalError');

    await page.goto(`${lead.url}#/labels`);
    await page.reload();
    await page.getByTestId('agreement-files').uncheck();
    await page.locator('[data-testid=agreement-pair][data-a=ann][data-b=bob]').waitFor();
    expect(
      await page
        .locator('[data-testid=agreement-pair][data-a=ann][data-b=bob] [data-testid=pair-kappa]')
        .innerText(),
    ).toBe('0.500');
    await page
      .locator(`[data-testid=disputed-case][data-query="${annLabels[1].queryId}"] [data-testid=adjudicated]`)
      .waitFor();
    // in the case workspace the labels are side by side: the file's, ann's, bob's, the final one
    const graphId = JSON.parse(readFileSync(FILE, 'utf8')).graph_id;
    await page.goto(
      `${lead.url}#/t/${encodeURIComponent(graphId)}/case/${encodeURIComponent(annLabels[1].queryId)}`,
    );
    await page.locator('[data-testid=label-record][data-source=adjudicated]').waitFor();
    const records = await page
      .getByTestId('label-record')
      .evaluateAll((els) =>
        els.map((e) => [
          e.getAttribute('data-origin'),
          e.getAttribute('data-annotator'),
          e.getAttribute('data-type'),
        ]),
      );
    expect(records).toEqual([
      ['file', 'counterfactual', expect.any(String)],
      ['imported', 'ann', 'RetrievalError'],
      ['imported', 'bob', 'ExtractionError'],
      ['workbench', 'lead', 'RetrievalError'],
    ]);
    expect(lead.errors).toEqual([]);
  }, 240_000);

  it('replacing the stored trace keeps every label on its question and says so', async () => {
    const { page } = lead;
    await page.setInputFiles('[data-testid=file-input]', [FILE]);
    await page.getByRole('button', { name: 'Replace' }).click();
    await page.getByTestId('import-labels-kept').waitFor({ state: 'attached', timeout: 60_000 });
    // six imported (ann's and bob's) and the adjudicated one; none detached, so the list stays folded
    expect((await page.getByTestId('import-labels-kept').textContent())?.trim()).toMatch(
      /^7 label\(s\) made or imported here kept on their questions\.$/,
    );
    await page.reload();
    await page.locator('[data-testid=label-record][data-source=adjudicated]').waitFor();
    expect(await page.getByTestId('label-record').count()).toBe(4);
  }, 120_000);
});
