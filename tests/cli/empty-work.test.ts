/** Work that has nothing to work on fails or warns clearly; `--sessions N` also limits the questions. */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { SHARED_DATA } from '../helpers/shared-data.ts';

const tmp = mkdtempSync(join(tmpdir(), 'memtrace-empty-'));

/** A LongMemEval instance whose golden answer ("purple") is said nowhere: no offline answer can be right. */
function unanswerable(): string {
  const file = join(tmp, 'unanswerable.json');
  writeFileSync(
    file,
    JSON.stringify([
      {
        question_id: 'q-bike',
        question_type: 'single-session-user',
        question: 'What colour is my new bike?',
        answer: 'purple',
        haystack_session_ids: ['s1', 's2'],
        haystack_dates: ['2023/05/20 (Sat) 02:21', '2023/05/21 (Sun) 09:00'],
        haystack_sessions: [
          [
            {
              role: 'user',
              content: 'I bought a new bike yesterday, a road bike with thin tyres.',
              has_answer: true,
            },
            { role: 'assistant', content: 'Enjoy the rides on your new road bike!' },
          ],
          [
            { role: 'user', content: 'The weather is lovely for cycling to work this week.' },
            { role: 'assistant', content: 'Great weather for it.' },
          ],
        ],
        answer_session_ids: ['s1'],
      },
    ]),
  );
  return file;
}

describe('empty work', () => {
  it('bench on an empty folder exits 1 saying there is nothing to score', async () => {
    const dir = join(tmp, 'empty');
    mkdirSync(dir);
    const r = await runCli(['bench', dir, '--method', 'evidence', '--json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`memtrace bench: no trace files (.json, .jsonl) in ${dir}\n`);
    expect(r.stdout).toBe('');
  });

  it('bench on traces without a single label exits 1', async () => {
    const dir = join(tmp, 'unlabelled');
    mkdirSync(dir);
    const made = await runCli([
      'run',
      '--system',
      'rag',
      '--data',
      unanswerable(),
      '-o',
      join(dir, 'run.json'),
    ]);
    expect(made.code).toBe(0);
    const r = await runCli(['bench', dir, '--method', 'evidence', '--json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no labelled case in 1 file\(s\): nothing to score\n$/);
  });

  it('inject where no answer is right plants nothing: it says why and exits 1', async () => {
    const out = join(tmp, 'bench-out');
    const r = await runCli([
      'inject',
      '--system',
      'rag',
      '--data',
      unanswerable(),
      '--out',
      out,
      '--per-type',
      '1',
      '--natural',
      '0',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /warning: fewer faults than asked \(extraction 0\/1, .*\): faults are planted only into questions the base run answered correctly, and 0 were/,
    );
    expect(r.stderr).toMatch(/memtrace inject: no fault could be injected and no failure was labelled/);
  });
});

describe('run --sessions N', () => {
  it('keeps only the questions whose evidence lies in the first N sessions', async () => {
    // Expected from the raw file: LoCoMo conv-26 questions (adversarial ones excluded) whose
    // every evidence id is a turn of session 1 or 2 ("D1:…", "D2:…").
    const raw = JSON.parse(readFileSync(join(SHARED_DATA, 'locomo/v2/26.json'), 'utf8'));
    const expected = raw.qa.filter(
      (q: { category: number; evidence: string[] }) =>
        q.category !== 5 && q.evidence.length > 0 && q.evidence.every((e) => /^D[12]:/.test(e)),
    ).length;
    expect(expected).toBeGreaterThan(0);
    const r = await runCli([
      'run',
      '--system',
      'rag',
      '--data',
      join(SHARED_DATA, 'locomo/v2/26.json'),
      '--sessions',
      '2',
      '-o',
      join(tmp, 's2.json'),
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^rag on conv-26 \\(2 sessions, ${expected} questions\\)`));
    expect(r.stderr).toMatch(new RegExp(`\\d+/${expected} answers judged correct`));
  });
});
