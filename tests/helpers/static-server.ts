/**
 * A static file server for browser tests and benches: folders mounted under URL prefixes
 * on a free port of 127.0.0.1. `/` serves the root folder's index.html; a path outside its
 * folder, a folder or a missing file is 404 — nothing is fetched from anywhere else.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';
import { CONTENT_TYPES } from '../../src/cli/serve/app.ts';

const TYPES = CONTENT_TYPES;

export interface StaticServer {
  /** `http://127.0.0.1:PORT/` */
  url: string;
  close(): Promise<void>;
}

/** Serves `mounts` (URL prefix ending in `/` → folder; longest prefix wins), e.g. `{ '/': dist, '/data/': dataDir }`. */
export async function serveStatic(mounts: Record<string, string>): Promise<StaticServer> {
  const table = Object.entries(mounts)
    .map(([prefix, dir]) => [prefix, resolve(dir)] as const)
    .sort((a, b) => b[0].length - a[0].length);
  const fileOf = (path: string): string | null => {
    const mount = table.find(([prefix]) => path.startsWith(prefix));
    if (!mount) return null;
    const [prefix, dir] = mount;
    const rest = path.slice(prefix.length);
    const file = resolve(join(dir, rest === '' && prefix === '/' ? 'index.html' : rest));
    return file.startsWith(dir + sep) && existsSync(file) && statSync(file).isFile() ? file : null;
  };
  const server = createServer((req, res) => {
    let file: string | null = null;
    try {
      file = fileOf(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    } catch {
      // A malformed escape is a path that does not exist.
    }
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
