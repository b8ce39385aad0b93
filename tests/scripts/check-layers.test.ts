import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkLayers, formatViolation, importCycles } from '../../scripts/layers/check.ts';
import { DB_TABLES, RULES } from '../../scripts/layers/rules.ts';
import { RECORD_VERSIONS } from '../../src/db/index.ts';

const ROOT = join(import.meta.dirname, '../..');
const FIXTURE = join(import.meta.dirname, '../fixtures/layers');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** What each sample says it breaks, from its own `expect:` line (independent of the checker). */
function expectations(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const abs of filesUnder(FIXTURE)) {
    if (abs.endsWith('.md')) continue;
    const m = /(?:\/\/|<!--)\s*expect:\s*([a-z, -]+?)\s*(?:-->)?\n/.exec(readFileSync(abs, 'utf8'));
    out.set(relative(FIXTURE, abs), m ? m[1].split(',').map((s) => s.trim()) : []);
  }
  return out;
}

describe('scripts/check-layers.ts on violating samples (tests/fixtures/layers)', () => {
  const violations = checkLayers(FIXTURE);
  const expected = expectations();

  it('has samples for every rule', () => {
    const covered = new Set([...expected.values()].flat());
    expect([...covered].sort()).toEqual(Object.keys(RULES).sort());
  });

  for (const [file, rules] of expected) {
    it(`${file}: ${rules.length ? rules.join(', ') : 'passes'}`, () => {
      const found = [...new Set(violations.filter((v) => v.file === file).map((v) => v.rule))].sort();
      expect(found).toEqual([...new Set(rules)].sort());
    });
  }

  it('names the file, the line and the rule in every message', () => {
    for (const v of violations) {
      const line = formatViolation(v);
      expect(line.startsWith(`${v.file}:${v.line}: [${v.rule}] `)).toBe(true);
      expect(line).toContain(RULES[v.rule]);
      expect(readFileSync(join(FIXTURE, v.file), 'utf8').split('\n').length).toBeGreaterThanOrEqual(v.line);
    }
  });

  it('exits 1 listing the violations, as npm test runs it', () => {
    let status = 0;
    let stderr = '';
    try {
      execFileSync(process.execPath, ['--import', 'tsx', 'scripts/check-layers.ts', FIXTURE], {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (e) {
      const err = e as { status: number; stderr: string };
      status = err.status;
      stderr = err.stderr;
    }
    expect(status).toBe(1);
    expect(stderr).toContain(`Layer rules broken (${violations.length}):`);
    expect(stderr).toContain('src/core/bad-up.ts:2: [layer-direction] imports "../app/view.ts"');
  });
});

describe('importCycles', () => {
  const e = (from: string, to: string, typeOnly = false) => ({ from, to, line: 1, typeOnly });
  it('finds one ring per knot, shortest from its first file, and nothing in a tree', () => {
    const cycles = importCycles([
      e('a', 'b'),
      e('b', 'c'),
      e('c', 'a'),
      e('b', 'a', true),
      e('c', 'd'),
      e('x', 'x'),
    ]);
    expect(cycles.map((c) => ({ ring: c.ring.map((r) => `${r.from}>${r.to}`), files: c.files }))).toEqual([
      { ring: ['a>b', 'b>a'], files: ['a', 'b', 'c'] },
      { ring: ['x>x'], files: ['x'] },
    ]);
    expect(importCycles([e('a', 'b'), e('b', 'c'), e('a', 'c')])).toEqual([]);
  });
});

describe('rule db-writer', () => {
  it('knows every table of the database (a write through any of them counts)', () => {
    expect([...DB_TABLES].sort()).toEqual(Object.keys(RECORD_VERSIONS).sort());
  });
});

describe('scripts/check-layers.ts on the real tree', () => {
  it('passes', () => {
    expect(checkLayers(ROOT, { skip: ['tests/fixtures'] }).map(formatViolation)).toEqual([]);
  });
});
