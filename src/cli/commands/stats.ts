import { traceStats } from '../../core/stats/index.ts';
import { formatIssue } from '../../core/trace/index.ts';
import { command, JSON_FLAG } from '../command.ts';
import { printJson } from '../io.ts';
import { openGraph } from './load.ts';

export const stats = command({
  name: 'stats',
  usage: 'memtrace stats <file> [--json]',
  args: { min: 1, max: 1, name: '<file>' },
  options: JSON_FLAG,
  async run({ positionals, values }, io) {
    const { graph, warnings } = await openGraph(positionals[0], io);
    // `warnings`: what the import did not understand (as `validate` lists them), beside the counts.
    const s = { ...traceStats(graph), warnings };
    if (values.json) printJson(io, s);
    else {
      for (const [k, v] of Object.entries(s)) {
        if (typeof v === 'number') io.stdout.write(`${k.padEnd(18)} ${v}\n`);
        else if (Array.isArray(v)) {
          io.stdout.write(`${k}: ${v.length}\n`);
          for (const w of v) io.stdout.write(`  ${formatIssue(w)}\n`);
        } else {
          io.stdout.write(`${k}:\n`);
          for (const [c, n] of Object.entries(v)) io.stdout.write(`  ${String(n).padStart(8)}  ${c}\n`);
        }
      }
    }
    return 0;
  },
});
