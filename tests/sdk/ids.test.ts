import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTrace } from '../../src/core/graph/index.ts';
import { randomIds, seededIds, steppingClock, Tracer } from '../../src/sdk/index.ts';
import { createSystem, loadLocomo, runSystem } from '../../src/systems/index.ts';

const HEX32 = /^[0-9a-f]{32}$/;

describe('seededIds', () => {
  it('never repeats an id on a long run (the earlier generator cycled after 4095 ids)', () => {
    for (const seed of [0, 1, 7, 2026]) {
      const next = seededIds(seed);
      const seen = new Set<string>();
      for (let i = 0; i < 50_000; i++) {
        const id = next();
        expect(id).toMatch(HEX32);
        seen.add(id);
      }
      expect(seen.size).toBe(50_000);
    }
  });

  it('is reproducible per seed and differs between seeds', () => {
    const a = seededIds(5);
    const b = seededIds(5);
    const c = seededIds(6);
    const first = Array.from({ length: 20 }, () => a());
    expect(Array.from({ length: 20 }, () => b())).toEqual(first);
    expect(Array.from({ length: 20 }, () => c()).some((id, i) => id === first[i])).toBe(false);
  });

  it('random ids are 32 hex digits, version 4', () => {
    expect(randomIds()).toMatch(/^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
  });

  it('a 6-session Mem0 and EverMemOS offline run with seeded ids loads (over 4095 ids)', async () => {
    const data = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../../shared/data/locomo/locomo-dev.json'), 'utf8'),
    );
    const conv = loadLocomo(data)[0];
    const six = { ...conv, sessions: conv.sessions.slice(0, 6) };
    for (const system of ['mem0', 'evermemos'] as const) {
      const tracer = new Tracer({
        clock: steppingClock(Date.UTC(2026, 0, 1), 1),
        ids: seededIds(1),
        metadata: { system },
      });
      await runSystem(createSystem(system), six, { tracer });
      const doc = tracer.document();
      const ids = doc.data.operations.length + doc.data.edges.length + doc.data.sessions.length;
      expect(ids).toBeGreaterThan(4095);
      const opened = openTrace(JSON.stringify(doc), { file: `${system}.json` });
      expect(opened.issues.filter((i) => i.severity === 'error')).toEqual([]);
      expect(opened.ok).toBe(true);
    }
  });
});
