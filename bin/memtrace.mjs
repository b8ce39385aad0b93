#!/usr/bin/env node
// `memtrace`: runs the CLI bundle (bin/cli-bundle.mjs builds it when missing or stale), and
// the TypeScript sources through tsx when it cannot be built. MEMTRACE_CLI=bundle or =tsx
// picks one (tests use it to know which ran).
import { pathToFileURL } from 'node:url';
import { currentBundle } from './cli-bundle.mjs';

// A reader that stops early (`memtrace validate … | head -1`) closes the pipe: end quietly.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (e) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });

const mode = process.env.MEMTRACE_CLI ?? 'auto';
let main;
// Freshness is checked for what this run loads: the entry, and the named command's code.
const bundle = mode === 'tsx' ? null : await currentBundle(undefined, process.argv[2]);
if (bundle) ({ main } = await import(pathToFileURL(bundle).href));
else if (mode === 'bundle') {
  process.stderr.write('memtrace: the CLI bundle could not be built (run `npm run build:cli` to see why)\n');
  process.exit(1);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
