#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so a clean checkout needs only `npm ci`.
import { register } from 'tsx/esm/api';

// A reader that stops early (`memtrace validate … | head -1`) closes the pipe: end quietly.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (e) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
