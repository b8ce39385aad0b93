/**
 * The built workbench (`vite build` → `dist/`) served by `memtrace serve`: files under the
 * app folder only, `index.html` with a `<meta name="memtrace-serve">` tag that tells the page
 * a receiver is there (the static deployment has no tag, so the page makes no request to
 * find out). When the project's own `dist/` is missing it is built first.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError } from '../io.ts';

/** Content types of the files a built app has (shared with the tests' static server). */
export const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.wasm': 'application/wasm',
  '.bin': 'application/octet-stream',
};

/** Where the page finds the receiver's list (relative to the page). */
export const RECEIVED_API = 'api/received/';
const MARKER = `<meta name="memtrace-serve" content="${RECEIVED_API}" />`;

/** The project folder (holding package.json and dist/), from this module's place (source or bundle). */
function projectRoot(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && readFileSync(pkg, 'utf8').includes('"name": "memtrace-workbench"')) return dir;
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/** Runs `vite build` in the project (its output on stderr); resolves with whether it worked. */
function buildApp(root: string, log: (line: string) => void): Promise<boolean> {
  const vite = join(root, 'node_modules/vite/bin/vite.js');
  if (!existsSync(vite)) {
    log('cannot build the workbench: vite is not installed (npm ci installs it)');
    return Promise.resolve(false);
  }
  log('building the workbench (vite build → dist/)…');
  return new Promise((ok) => {
    const child = spawn(process.execPath, [vite, 'build', '--logLevel', 'warn'], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', () => ok(false));
    child.on('close', (code) => ok(code === 0));
  });
}

/** Serves a file of the app folder; false when the path names none (the caller answers 404). */
export async function serveAppFile(dir: string, urlPath: string, res: ServerResponse): Promise<boolean> {
  let path: string;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    return false; // a malformed escape names no file
  }
  const root = resolve(dir);
  const file = resolve(join(root, path === '/' ? 'index.html' : path));
  if (!file.startsWith(root + sep)) return false;
  const s = await stat(file).catch(() => null);
  if (!s?.isFile()) return false;
  let body = await readFile(file);
  if (file === join(root, 'index.html'))
    body = Buffer.from(body.toString('utf8').replace('</head>', `  ${MARKER}\n  </head>`));
  res.writeHead(200, {
    'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
    'content-length': body.length,
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-cache',
  });
  res.end(body);
  return true;
}

/** The app folder to serve: --app as given, else the project's dist/ (built when missing or asked). */
export async function appFolder(given: string | undefined, rebuild: boolean, log: (l: string) => void) {
  if (given) {
    if (!existsSync(join(given, 'index.html'))) throw new CliError(`--app ${given}: no index.html there`);
    return given;
  }
  const root = projectRoot();
  if (!root) {
    log('the workbench is not served: the project folder (with dist/) was not found');
    return null;
  }
  const dist = join(root, 'dist');
  if ((rebuild || !existsSync(join(dist, 'index.html'))) && !(await buildApp(root, log))) {
    log('the workbench is not served: vite build failed (see above); traces are still received');
    return null;
  }
  return dist;
}
