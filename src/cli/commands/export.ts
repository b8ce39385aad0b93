import { exportSmartcomment } from '../../core/trace/index.ts';
import { otlpJson } from '../../sdk/otel.ts';
import { command } from '../command.ts';
import { outputFile } from '../files.ts';
import { CliError } from '../io.ts';
import { writeAtomic } from '../write.ts';
import { loadGraph } from './load.ts';

/** `otlp`: GenAI + memory span attributes; `openinference`: Phoenix's names. Both keep every record in `memtrace.*`. */
const EXPORT_FORMATS = ['smartcomment', 'otlp', 'openinference'] as const;

export const exportCommand = command({
  name: 'export',
  usage:
    'memtrace export <file> --format smartcomment|otlp|openinference -o <out> [--indent N] [--standard-only]',
  args: { min: 1, max: 1, name: '<file>' },
  options: {
    format: {
      type: 'string',
      default: 'smartcomment',
      choices: EXPORT_FORMATS,
      help: 'the output format (otlp: GenAI + memory spans; openinference: Phoenix names)',
    },
    'standard-only': {
      type: 'boolean',
      default: false,
      help: 'OTLP: only the standard attributes, without the memtrace.* records that make it lossless',
    },
    output: { type: 'string', short: 'o', value: 'FILE', help: 'where to write (required)' },
    indent: {
      type: 'string',
      default: '2',
      value: 'N',
      int: { min: 0, max: 8 },
      help: 'JSON indentation, 0–8 (smartcomment)',
    },
  },
  async run({ positionals, values }, io) {
    const format = values.format;
    if (typeof values.output !== 'string') throw new CliError('export needs -o <out>', 2);
    const indent = values.indent;
    await outputFile(values.output, '-o');
    const g = await loadGraph(positionals[0], io);
    const bytes =
      format === 'smartcomment'
        ? exportSmartcomment(g.doc, { indent })
        : await otlpJson(g.doc, {
            flavour: format === 'otlp' ? 'genai' : 'openinference',
            exact: values['standard-only'] !== true,
          });
    await writeAtomic(values.output, bytes);
    io.stderr.write(`wrote ${values.output}\n`);
    return 0;
  },
});
