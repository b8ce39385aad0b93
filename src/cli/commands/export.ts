import { writeFile } from 'node:fs/promises';
import { exportSmartcomment } from '../../core/trace/export.ts';
import type { Command } from '../command.ts';
import { CliError } from '../io.ts';
import { loadGraph } from './load.ts';

export const exportCommand: Command = {
  name: 'export',
  summary: 'write a trace back out (smartcomment JSON, lossless)',
  usage: 'memtrace export <file> --format smartcomment -o <out> [--indent N]',
  options: {
    format: { type: 'string', default: 'smartcomment' },
    output: { type: 'string', short: 'o' },
    indent: { type: 'string', default: '2' },
  },
  async run({ positionals, values }, io) {
    if (positionals.length !== 1) throw new CliError('export takes exactly one file');
    if (values.format !== 'smartcomment')
      throw new CliError(`unknown --format "${values.format}"; supported: smartcomment`);
    if (typeof values.output !== 'string') throw new CliError('export needs -o <out>');
    const indent = Number(values.indent);
    if (!Number.isInteger(indent) || indent < 0 || indent > 8)
      throw new CliError('--indent must be a whole number 0–8');
    const g = await loadGraph(positionals[0], io);
    try {
      await writeFile(values.output, exportSmartcomment(g.doc, { indent }));
    } catch (e) {
      throw new CliError(
        `${values.output}: cannot write (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      );
    }
    io.stderr.write(`wrote ${values.output}\n`);
    return 0;
  },
};
