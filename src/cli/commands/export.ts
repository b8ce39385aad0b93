import { writeFile } from 'node:fs/promises';
import { exportSmartcomment } from '../../core/trace/export.ts';
import { otlpJson } from '../../sdk/otel.ts';
import type { Command } from '../command.ts';
import { CliError } from '../io.ts';
import { loadGraph } from './load.ts';

/** `otlp`: GenAI + memory span attributes; `openinference`: Phoenix's names. Both keep every record in `memtrace.*`. */
const EXPORT_FORMATS = ['smartcomment', 'otlp', 'openinference'];

export const exportCommand: Command = {
  name: 'export',
  summary:
    'write a trace back out (smartcomment JSON, or OTLP/JSON with GenAI / OpenInference spans; lossless)',
  usage:
    'memtrace export <file> --format smartcomment|otlp|openinference -o <out> [--indent N] [--standard-only]',
  options: {
    format: { type: 'string', default: 'smartcomment' },
    'standard-only': { type: 'boolean', default: false },
    output: { type: 'string', short: 'o' },
    indent: { type: 'string', default: '2' },
  },
  async run({ positionals, values }, io) {
    if (positionals.length !== 1) throw new CliError('export takes exactly one file');
    const format = String(values.format);
    if (!EXPORT_FORMATS.includes(format))
      throw new CliError(`unknown --format "${format}"; supported: ${EXPORT_FORMATS.join(', ')}`);
    if (typeof values.output !== 'string') throw new CliError('export needs -o <out>');
    const indent = Number(values.indent);
    if (!Number.isInteger(indent) || indent < 0 || indent > 8)
      throw new CliError('--indent must be a whole number 0–8');
    const g = await loadGraph(positionals[0], io);
    try {
      const bytes =
        format === 'smartcomment'
          ? exportSmartcomment(g.doc, { indent })
          : await otlpJson(g.doc, {
              flavour: format === 'otlp' ? 'genai' : 'openinference',
              exact: values['standard-only'] !== true,
            });
      await writeFile(values.output, bytes);
    } catch (e) {
      throw new CliError(
        `${values.output}: cannot write (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      );
    }
    io.stderr.write(`wrote ${values.output}\n`);
    return 0;
  },
};
