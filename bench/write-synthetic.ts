/** Writes the synthetic graph to a file: `tsx bench/write-synthetic.ts OUT [MB]`. */
import { createWriteStream } from 'node:fs';
import { type SyntheticOptions, syntheticChunks } from './synthetic.ts';

/** Writes a synthetic graph of about `megabytes` MB (other options as `syntheticChunks`, e.g. another window budget). */
export async function writeSynthetic(
  path: string,
  megabytes: number,
  options: Omit<SyntheticOptions, 'targetBytes'> = {},
): Promise<void> {
  const out = createWriteStream(path);
  for (const chunk of syntheticChunks({ ...options, targetBytes: megabytes * 1e6 })) {
    if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
}

if (process.argv[1]?.endsWith('write-synthetic.ts')) {
  const [path = 'bench/out/synthetic-100mb.json', mb = '100'] = process.argv.slice(2);
  await writeSynthetic(path, Number(mb));
  console.log(`wrote ${path}`);
}
