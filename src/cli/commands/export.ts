import { writeFile } from 'node:fs/promises';
import { exportSmartcomment } from '../../core/trace/export.ts';
import type { Command } from '../command.ts';
import { outputFile } from '../files.ts';
import { CliError } from '../io.ts';
import { loadGraph } from './load.ts';

export const exportCommand: Command = {
  name: 'export',
  summary: 'write a trace back out (smartcomment JSON, lossless)',
  usage: 'memtrace export <file> --format smartcomment -o <out> [--indent N]',
  args: { min: 1, max: 1, name: '<file>' },
  options: {
    format: { type: 'string', default: 'smartcomment', value: 'smartcomment', help: 'the output format' },
    output: { type: 'string', short: 'o', value: 'FILE', help: 'where to write (required)' },
    indent: { type: 'string', default: '2', value: 'N', help: 'JSON indentation, 0–8' },
  },
  async run({ positionals, values }, io) {
    if (values.format !== 'smartcomment')
      throw new CliError(`unknown --format "${values.format}"; supported: smartcomment`, 2);
    if (typeof values.output !== 'string') throw new CliError('export needs -o <out>', 2);
    const indent = Number(values.indent);
    if (!Number.isInteger(indent) || indent < 0 || indent > 8)
      throw new CliError('--indent must be a whole number 0–8', 2);
    await outputFile(values.output, '-o');
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
