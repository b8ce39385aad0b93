/**
 * Every direct dependency (dependencies, optionalDependencies, devDependencies) must run on
 * the Node versions the project declares: the lowest version `package.json` `engines.node`
 * accepts (what CI installs, Node 20 here) must satisfy the installed package's own
 * `engines.node` (read from `node_modules/<name>/package.json`; none declared = any Node).
 * The lowest version, not the whole range: packages with native code name the majors they
 * were built for (`20.x || 22.x`), which no open range (`>=20`) is a subset of.
 * The packages they pull in are checked the same way from `package-lock.json` (its entries
 * carry each package's `engines`), so an indirect one cannot slip in either.
 * Prints `name@version: engines.node "…" excludes Node X (package.json declares "…")` per
 * problem and exits 1; otherwise one ok line. `tsx scripts/check-engines.ts [root]`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import semver from 'semver';

interface Manifest {
  version?: string;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

function readManifest(file: string): Manifest {
  return JSON.parse(readFileSync(file, 'utf8')) as Manifest;
}

/** One problem per direct dependency whose `engines.node` leaves out the declared lowest Node. */
export function engineProblems(rootDir: string): string[] {
  const root = resolve(rootDir);
  const own = readManifest(join(root, 'package.json'));
  const declared = own.engines?.node;
  if (!declared) return ['package.json: no engines.node declared'];
  const lowest = semver.minVersion(declared);
  if (!lowest) return [`package.json: engines.node "${declared}" names no version`];
  const names = new Set([
    ...Object.keys(own.dependencies ?? {}),
    ...Object.keys(own.optionalDependencies ?? {}),
    ...Object.keys(own.devDependencies ?? {}),
  ]);
  const problems: string[] = [];
  for (const name of [...names].sort()) {
    const file = join(root, 'node_modules', name, 'package.json');
    if (!existsSync(file)) {
      // An optional dependency may be left out by the installer; the others must be there.
      if (!(name in (own.optionalDependencies ?? {}))) problems.push(`${name}: not installed (run npm ci)`);
      continue;
    }
    const dep = readManifest(file);
    const wants = dep.engines?.node;
    if (wants && !semver.satisfies(lowest, wants))
      problems.push(
        `${name}@${dep.version}: engines.node "${wants}" excludes Node ${lowest.version} (package.json declares "${declared}")`,
      );
  }
  return [...problems, ...lockProblems(root, lowest, declared)];
}

/** The same test on every package the lock file installs (`node_modules/…` entries). */
function lockProblems(root: string, lowest: semver.SemVer, declared: string): string[] {
  const file = join(root, 'package-lock.json');
  if (!existsSync(file)) return [];
  const lock = JSON.parse(readFileSync(file, 'utf8')) as { packages?: Record<string, Manifest> };
  const problems: string[] = [];
  for (const [where, entry] of Object.entries(lock.packages ?? {})) {
    const wants = entry.engines?.node;
    if (where && wants && !semver.satisfies(lowest, wants))
      problems.push(
        `${where.replace(/^.*node_modules\//, '')}@${entry.version} (${where}, package-lock.json): engines.node "${wants}" excludes Node ${lowest.version} (package.json declares "${declared}")`,
      );
  }
  return problems;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = process.argv[2] ?? '.';
  const problems = engineProblems(root);
  if (problems.length) {
    process.stderr.write(`Dependencies that do not run on the declared Node (${problems.length}):\n`);
    for (const p of problems) process.stderr.write(`${p}\n`);
    process.exit(1);
  }
  process.stdout.write('engines: every direct dependency accepts the declared Node\n');
}
