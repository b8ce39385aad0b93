/**
 * Layer rules (docs/architecture.md): dependencies point down only.
 * src/core is pure TypeScript — no UI, storage, DOM-only or Node modules — so it
 * runs in the browser, a worker and Node alike. Exits 1 listing every violation.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

interface Rule {
  layer: string;
  forbidden: RegExp[];
  why: string;
}

const NODE = /^node:|^(fs|path|os|child_process|http|https|url|util|stream|crypto|worker_threads)(\/|$)/;
const RULES: Rule[] = [
  {
    layer: 'src/core',
    forbidden: [
      NODE,
      /^svelte/,
      /^dexie/,
      /^comlink/,
      /^d3/,
      /^flexsearch/,
      /(^|\/)(app|db|cli|sdk|systems)\//,
      /workers\//,
    ],
    why: 'core is pure: no Node, UI, storage or worker imports',
  },
  {
    layer: 'src/db',
    forbidden: [NODE, /^svelte/, /(^|\/)(app|cli)\//, /workers\//],
    why: 'storage sits below the UI and the CLI',
  },
  {
    layer: 'src/app',
    forbidden: [NODE, /(^|\/)cli\//, /(^|\/)core\/.*\/worker-impl/],
    why: 'the UI runs in the browser and talks to workers through their typed APIs',
  },
  {
    layer: 'workers',
    forbidden: [NODE, /(^|\/)(app|cli)\//, /^svelte/],
    why: 'workers host core code for the UI, never the other way round',
  },
  {
    layer: 'src/sdk',
    forbidden: [/(^|\/)(app|cli|db|systems)\//, /^svelte/, /^dexie/],
    why: 'the SDK depends on the trace core only',
  },
];

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"`]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function files(dir: string): string[] {
  let out: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out = out.concat(files(p));
    else if (/\.(ts|svelte|js|mjs)$/.test(e)) out.push(p);
  }
  return out;
}

const root = process.cwd();
const violations: string[] = [];
for (const rule of RULES) {
  for (const file of files(join(root, rule.layer))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3];
      // Node-only adapters are allowed inside core when the file says so by name (*.node.ts).
      if (file.endsWith('.node.ts') && NODE.test(spec)) continue;
      if (rule.forbidden.some((re) => re.test(spec)))
        violations.push(`${relative(root, file)}: imports "${spec}" — ${rule.why}`);
    }
  }
}
if (violations.length) {
  console.error(`Layer rules broken (${violations.length}):\n${violations.join('\n')}`);
  process.exit(1);
}
console.log('layer rules: ok');
