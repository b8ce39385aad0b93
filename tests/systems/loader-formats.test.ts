/**
 * Every loader checks its format: a file of another data set (or a broken one) fails with the
 * file, the first mismatching path and what it looks like; `--dataset` may be left out.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DatasetFormatError, detectDataset, loadDataset } from '../../src/systems/index.ts';
import { runCli } from '../helpers/cli.ts';
import { SHARED_DATA } from '../helpers/shared-data.ts';

const REALMEM = join(SHARED_DATA, 'realmem/Kenta_Tanaka_dialogues_256k.json');
const LOCOMO = join(SHARED_DATA, 'locomo/locomo-dev.json');
const LOCOMO_V2 = join(SHARED_DATA, 'locomo/v2/26.json');
const read = (p: string) => JSON.parse(readFileSync(p, 'utf8'));

function formatError(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(DatasetFormatError);
    return (e as Error).message;
  }
  throw new Error('expected a DatasetFormatError');
}

describe('data set loaders check their format', () => {
  it('a RealMem file read as LoCoMo fails at the first LoCoMo field it lacks, and says what it is', () => {
    const msg = formatError(() => loadDataset('locomo', read(REALMEM), REALMEM));
    expect(msg).toBe(
      'not a LoCoMo file: at speaker_a: missing (expected string) (it looks like RealMem, one persona)',
    );
  });

  it('a LoCoMo file read as LongMemEval fails at the first instance', () => {
    const msg = formatError(() => loadDataset('longmemeval', read(LOCOMO), LOCOMO));
    expect(msg).toMatch(
      /^not a LongMemEval file: at \[0\]\.question_id: missing \(expected string\) \(it looks like LoCoMo/,
    );
  });

  it('a LoCoMo file read as RealMem fails at `dialogues`', () => {
    expect(formatError(() => loadDataset('realmem', read(LOCOMO_V2), LOCOMO_V2))).toMatch(
      /^not a RealMem file: at dialogues: missing \(expected array\)/,
    );
  });

  it('a broken turn deep inside a real file is named by its path', () => {
    const data = read(LOCOMO);
    data[2].conversation.session_4[5].text = 42;
    expect(formatError(() => loadDataset('locomo', data))).toBe(
      'not a LoCoMo file: at [2].conversation.session_4[5].text: expected string, received number',
    );
    const realmem = read(REALMEM);
    delete realmem.dialogues[7].dialogue_turns[3].content;
    expect(formatError(() => loadDataset('realmem', realmem))).toBe(
      'not a RealMem file: at dialogues[7].dialogue_turns[3].content: missing (expected string)',
    );
  });

  it('without a name the data set is detected from the shape, for every layout', () => {
    expect(detectDataset(read(REALMEM))?.dataset).toBe('realmem');
    const [persona] = loadDataset(undefined, read(REALMEM), REALMEM);
    expect(persona).toMatchObject({ dataset: 'realmem', id: 'Kenta_Tanaka' });
    expect(loadDataset(undefined, read(LOCOMO)).map((c) => c.dataset)).toEqual(Array(7).fill('locomo'));
    expect(loadDataset(undefined, read(LOCOMO_V2), LOCOMO_V2)[0].id).toBe('conv-26');
    expect(formatError(() => loadDataset(undefined, { traces: [] }))).toMatch(
      /does not look like LoCoMo, RealMem or LongMemEval/,
    );
  });
});

describe('memtrace run on the wrong data set', () => {
  it('exits 1 with one line naming the file and the place; nothing is written', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'memtrace-run-')), 'run.json');
    const r = await runCli(['run', '--system', 'rag', '--dataset', 'locomo', '--data', REALMEM, '-o', out]);
    expect(r.code).toBe(1);
    expect(existsSync(out)).toBe(false);
    expect(r.stderr).toBe(
      `memtrace run: ${REALMEM}: not a LoCoMo file: at speaker_a: missing (expected string) (it looks like RealMem, one persona)\n`,
    );
  });

  it('--dataset can be left out: the file’s shape says which', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'memtrace-run-')), 'run.json');
    const r = await runCli(['run', '--system', 'rag', '--data', LOCOMO_V2, '--sessions', '1', '-o', out]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^rag on conv-26 /);
    expect(existsSync(out)).toBe(true);
  });
});
