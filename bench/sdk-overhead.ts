/**
 * Tracing SDK overhead: operations per second and bytes per operation for a
 * Mem0-shaped op (a message and a prompt in, a list of facts out), in memory and
 * streamed to disk, with the pure-TypeScript SHA-1 and with Node's crypto.
 * Usage: npx tsx bench/sdk-overhead.ts [ops]
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileSink } from '../src/sdk/file-sink.node.ts';
import { Tracer, type TracerOptions } from '../src/sdk/index.ts';

const N = Number(process.argv[2] ?? 20000);
const nodeSha1 = (s: string) => createHash('sha1').update(s, 'utf8').digest('hex');

function run(t: Tracer) {
  const prompt = t.variable('Extract salient personal facts from the new message.', {
    name: 'fact-extraction-system-prompt',
    category: 'prompt',
  });
  t.session('construction', { category: 'memory_construction' }, () => {
    for (let i = 0; i < N; i++) {
      const text = `Speaker ${i % 2}: message number ${i} about a trip to city ${i % 97} with friends and family.`;
      t.op('fact-extraction', { category: 'extraction', metadata: { llm_model: 'offline' } }, (op) => {
        op.input(text, { name: `bench:D${i}`, category: 'message' });
        op.input(prompt);
        op.output([text.slice(11), `fact ${i}`], { category: 'facts' });
      });
    }
  });
}

async function measure(label: string, options: TracerOptions, file?: string) {
  const t0 = performance.now();
  const t = new Tracer(options);
  run(t);
  let bytes: number;
  if (file) {
    await t.finish();
    bytes = statSync(file).size;
  } else bytes = Buffer.byteLength(JSON.stringify(t.document(), null, 2));
  const ms = performance.now() - t0;
  const row = `| ${label} | ${N} | ${Math.round(N / (ms / 1000))} | ${Math.round(bytes / N)} | ${(bytes / 1e6).toFixed(1)} |`;
  console.log(row);
  return row;
}

const dir = mkdtempSync(join(tmpdir(), 'sdk-bench-'));
console.log('| mode | ops | ops/s | bytes/op | file MB |\n| --- | --- | --- | --- | --- |');
await measure('in memory, pure-TS SHA-1 (browser path)', {});
await measure('in memory, Node crypto SHA-1', { sha1: nodeSha1 });
await measure(
  'streamed to disk, Node crypto SHA-1',
  { sha1: nodeSha1, sink: fileSink(join(dir, 'a.json')) },
  join(dir, 'a.json'),
);
await measure('in memory, stack call sites', { sha1: nodeSha1, callsite: 'stack' });
rmSync(dir, { recursive: true, force: true });
