/**
 * scripts/check-faces.ts: a face with `export *`, or naming what no file outside its module
 * imports, fails the check with its place — in core and in the other layers (a module there is
 * the outermost folder under src/ with an index.ts); the SDK's public face keeps every name;
 * `--write` narrows faces to the names used, and the check passes; the real tree passes.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** Runs the checker as `npm test` does (cwd the project), on `root`. */
function run(root: string, ...flags: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/check-faces.ts', root, ...flags], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return { status: r.status, out: r.stdout + r.stderr };
}

/** A temporary tree of `files` (path → text), with the project's node_modules. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'memtrace-faces-'));
  made.push(dir);
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/**
 * Modules outside core: systems (a face re-exporting its files and the module nested in it,
 * loaders/, whose face is asked for `load` by the parent's face and for `parse` by a file of the
 * parent; a file inside systems taking `spare` from its face does not count), the
 * SDK's public face (`forUsers`: imported by no file, kept; `export type *` too), an app folder
 * whose face names a Svelte component, and the workers' API face with a side-effect import
 * (a worker's own import of it counts);
 * `later` is taken only by `Promise.all([import(…)])` destructuring.
 */
function layers(): string {
  return tree({
    'src/systems/a.ts':
      "import { parse } from './loaders/index.ts';\nexport const run = parse;\nexport const spare = 2;\nexport const later = 3;\n",
    'src/systems/loaders/load.ts':
      'export const load = 4;\nexport const parse = 5;\nexport const idle = 6;\n',
    'src/systems/loaders/index.ts': "export * from './load.ts';\n",
    'src/systems/loaders/uses.ts': "import { spare } from '../index.ts';\nexport const s = spare;\n",
    'src/systems/index.ts': "/** Systems. */\nexport * from './a.ts';\nexport * from './loaders/index.ts';\n",
    'workers/w.ts': "import { load, run } from '../src/systems/index.ts';\nexport const x = run + load;\n",
    'src/cli/lazy.ts':
      "export async function lazy() {\n  const [{ later }] = await Promise.all([import('../systems/index.ts')]);\n  return later;\n}\n",
    'src/sdk/tracer.ts': 'export class Tracer {}\nexport const forUsers = 5;\n',
    'src/sdk/options.ts': 'export interface Options {\n  n: number;\n}\n',
    'src/sdk/index.ts': "/** The SDK. */\nexport * from './tracer.ts';\nexport type * from './options.ts';\n",
    'workers/setup.ts': 'export const ready = true;\n',
    'workers/engine-api.ts':
      'export interface EngineApi {\n  n: number;\n}\nexport const NO_LABELS = 0;\nexport const SHOWN = 1;\n',
    'workers/engine.ts': "import { SHOWN } from './api.ts';\nexport const shown = SHOWN;\n",
    'workers/api.ts':
      "/** The API. */\n// Registers a transfer.\nimport './setup.ts';\n\nexport * from './engine-api.ts';\n",
    'src/systems/traced.ts': "import { Tracer } from '../sdk/index.ts';\nexport const t = new Tracer();\n",
    'src/app/view/View.svelte':
      '<script lang="ts">\n  let { n }: { n: number } = $props();\n</script>\n\n<p>{n}</p>\n',
    'src/app/view/util.ts': 'export const fmt = (n: number) => String(n);\nexport const unusedUtil = 6;\n',
    'src/app/view/index.ts': "export { default as View } from './View.svelte';\nexport * from './util.ts';\n",
    'src/app/App.svelte':
      "<script lang=\"ts\">\n  import type { EngineApi } from '../../workers/api.ts';\n  import { fmt, View } from './view/index.ts';\n  export const api: EngineApi | null = null;\n</script>\n\n<View n={1} />{fmt(2)}\n",
  });
}

/** A module `m` (a.ts: used and unused names, b.ts: never used) whose face re-exports everything, used by the app. */
function sample(): string {
  return tree({
    'src/core/m/a.ts':
      'export const used = 1;\nexport interface Shape {\n  n: number;\n}\nexport const unused = 2;\n',
    'src/core/m/b.ts': 'export const never = 3;\n',
    'src/core/m/index.ts': "/** The sample module. */\nexport * from './a.ts';\nexport * from './b.ts';\n",
    'src/app/use.ts':
      "import { type Shape, used } from '../core/m/index.ts';\nexport const s: Shape = { n: used };\n",
  });
}

describe('scripts/check-faces.ts', () => {
  it('fails on `export *` and on names no other module imports, naming the face and the names', () => {
    const dir = sample();
    const r = run(dir);
    expect(r.status).toBe(1);
    expect(r.out).toContain('src/core/m/index.ts:2: `export *`');
    expect(r.out).toContain('src/core/m/index.ts:3: `export *`');
    expect(r.out).toMatch(
      /src\/core\/m\/index\.ts: exports what no file outside the module imports: (unused, never|never, unused)/,
    );
  });

  it('--write narrows the face to the names used (values and types), and the check then passes', () => {
    const dir = sample();
    expect(run(dir, '--write').status).toBe(0);
    const face = readFileSync(join(dir, 'src/core/m/index.ts'), 'utf8');
    expect(face).toContain('/** The sample module. */');
    expect(face).not.toContain('export *');
    expect(face).toMatch(/export \{ type Shape, used \} from ['"]\.\/a\.ts['"];/);
    expect(face).not.toMatch(/unused|never|b\.ts/);
    expect(run(dir).status).toBe(0);
  });

  it('checks the faces of modules outside core; the public SDK face may keep unused names', () => {
    const r = run(layers());
    expect(r.status).toBe(1);
    expect(r.out).toContain('src/systems/index.ts:2: `export *`');
    expect(r.out).toContain('src/systems/index.ts:3: `export *`');
    expect(r.out).toContain('src/sdk/index.ts:2: `export *`');
    expect(r.out).toContain('src/sdk/index.ts:3: `export *`');
    expect(r.out).toContain('workers/api.ts:5: `export *`');
    expect(r.out).toMatch(/^workers\/api\.ts: exports what no file outside the module imports: NO_LABELS$/m);
    expect(r.out).toContain('src/app/view/index.ts:2: `export *`');
    const unused = /^src\/systems\/index\.ts: exports what no file outside the module imports: (.*)$/m.exec(
      r.out,
    );
    expect(unused?.[1].split(', ').sort()).toEqual(['idle', 'parse', 'spare']);
    expect(r.out).toMatch(
      /^src\/app\/view\/index\.ts: exports what no file outside the module imports: unusedUtil$/m,
    );
    expect(r.out).not.toContain('src/sdk/index.ts: exports what');
    expect(r.out).toContain('src/systems/loaders/index.ts:1: `export *`');
  });

  it('--write names what each face gives: used names, every public name, a Svelte default as written', () => {
    const dir = layers();
    expect(run(dir, '--write').status).toBe(0);
    const read = (f: string) => readFileSync(join(dir, f), 'utf8');
    const systems = read('src/systems/index.ts');
    expect(systems).toContain('/** Systems. */');
    expect(systems).toMatch(/export \{ later, run \} from ['"]\.\/a\.ts['"];/);
    // Through the nested module's face, which then names what its parent and the parent's files take.
    expect(systems).toMatch(/export \{ load \} from ['"]\.\/loaders\/index\.ts['"];/);
    expect(read('src/systems/loaders/index.ts')).toMatch(
      /^export \{ load, parse \} from ['"]\.\/load\.ts['"];$/m,
    );
    expect(systems).not.toMatch(/spare|export \*/);
    const sdk = read('src/sdk/index.ts');
    expect(sdk).toMatch(/export \{ forUsers, Tracer \} from ['"]\.\/tracer\.ts['"];/);
    expect(sdk).toMatch(/export type \{ Options \} from ['"]\.\/options\.ts['"];/);
    // The workers' API keeps its side-effect import, with its comment.
    const api = read('workers/api.ts');
    expect(api).toMatch(/\/\/ Registers a transfer\.\nimport ['"]\.\/setup\.ts['"];/);
    // A worker's own use counts: the workers take their shared names from their API too.
    expect(api).toMatch(/export \{ type EngineApi, SHOWN \} from ['"]\.\/engine-api\.ts['"];/);
    expect(api).not.toMatch(/NO_LABELS|export \*/);
    const view = read('src/app/view/index.ts');
    expect(view).toMatch(/export \{ default as View \} from ['"]\.\/View\.svelte['"];/);
    expect(view).toMatch(/export \{ fmt \} from ['"]\.\/util\.ts['"];/);
    expect(view).not.toContain('unusedUtil');
    expect(run(dir).status).toBe(0);
  });

  it('names what a face lacks (a merged branch takes it) and --write adds it from the file that declares it', () => {
    const dir = tree({
      'src/core/m/a.ts': 'export const used = 1;\nexport const later = 2;\n',
      'src/core/m/b.ts': "export { later } from './a.ts';\n",
      'src/core/m/index.ts': "/** The sample module. */\nexport { used } from './a.ts';\n",
      'src/app/use.ts': "import { later, used } from '../core/m/index.ts';\nexport const n = used + later;\n",
    });
    const r = run(dir);
    expect(r.status).toBe(1);
    expect(r.out).toContain(
      'src/core/m/index.ts: does not name what files outside the module import from it: later',
    );
    expect(run(dir, '--write').status).toBe(0);
    expect(readFileSync(join(dir, 'src/core/m/index.ts'), 'utf8')).toMatch(
      /export \{ later, used \} from ['"]\.\/a\.ts['"];/,
    );
    expect(run(dir).status).toBe(0);
  });

  it('passes on the real tree', () => {
    const r = run(ROOT);
    expect(r.out).toMatch(/^faces: ok/m);
    expect(r.status).toBe(0);
  }, 120_000);
});
