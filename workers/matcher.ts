/**
 * The evidence-flow matcher of the engine worker: the same layers as the CLI's default
 * (`vectors`), with the word-vector file the app serves (`vectors/…bin`, emitted by the
 * build) fetched once per worker, with progress. When the file cannot be had, attribution
 * still runs, one layer down (`normalised`), and says so.
 */
import {
  type EvidenceFlowOptions,
  effectiveMatchLayer,
  type MatchLayer,
} from '../src/core/attribution/index.ts';
import { contentTerms, numbersAsDigits, referenceDay, temporalMentions } from '../src/core/nlp/index.ts';
import { vectorSimilarity, WordVectors } from '../src/core/semantic/index.ts';

export interface MatcherProgress {
  /** Bytes of the word-vector file read so far, and its size when the server says. */
  loaded: number;
  total: number | null;
}

export interface MatcherInfo {
  layer: MatchLayer;
  /** Words in the vocabulary (0 without vectors). */
  words: number;
  /** Why the layer is lower than the default, when it is. */
  note: string | null;
}

/** Bytes between two progress reports. */
const PROGRESS_STEP = 1 << 20;

async function readWithProgress(
  res: Response,
  onProgress: (p: MatcherProgress) => void,
): Promise<Uint8Array> {
  const total = Number(res.headers.get('content-length')) || null;
  if (!res.body) return new Uint8Array(await res.arrayBuffer());
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let loaded = 0;
  let told = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    loaded += value.length;
    // Every chunk would be a message to the page per listener (hundreds for the 11 MB file).
    if (loaded - told >= PROGRESS_STEP) {
      told = loaded;
      onProgress({ loaded, total });
    }
  }
  if (told < loaded) onProgress({ loaded, total });
  // The page hands its download over as one chunk: no second copy of the 11 MB.
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(loaded);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** One per worker: loads the word vectors on first use and hands out the matcher options. */
export class Matching {
  #url: string | null = null;
  #loading: Promise<WordVectors | null> | null = null;
  #note: string | null = null;
  #listeners = new Set<(p: MatcherProgress) => void>();

  constructor(private readonly fetchFn: typeof fetch = (...a) => fetch(...a)) {}

  #body: ReadableStream<Uint8Array> | null = null;

  /**
   * Where the vectors are (the page knows the app's base URL) and, when the page is already
   * downloading them (on its own thread, while this worker is still starting up), the file's
   * body as it arrives: read instead of fetching the file again.
   */
  setSource(url: string, body?: ReadableStream<Uint8Array>): void {
    if (url !== this.#url) {
      this.#url = url;
      this.#loading = null;
    }
    if (!body) return;
    // Loading or loaded already: the page's copy is not needed.
    if (this.#loading) void body.cancel().catch(() => {});
    else {
      void this.#body?.cancel().catch(() => {});
      this.#body = body;
    }
  }

  /** Loads the vectors once (later calls wait for the same load); progress to `onProgress`. */
  async load(onProgress?: (p: MatcherProgress) => void): Promise<MatcherInfo> {
    if (onProgress) this.#listeners.add(onProgress);
    try {
      const wv = await this.#vectors();
      return {
        layer: effectiveMatchLayer(undefined, !!wv),
        words: wv?.size ?? 0,
        note: wv ? null : this.#note,
      };
    } finally {
      if (onProgress) this.#listeners.delete(onProgress);
    }
  }

  /** The evidence-flow options: word vectors when they loaded, else the normalised layer. */
  async options(): Promise<EvidenceFlowOptions> {
    const wv = await this.#vectors();
    const now = () => performance.now();
    const layer = effectiveMatchLayer(undefined, !!wv);
    return wv ? { layer, similar: vectorSimilarity(wv), now } : { layer, now };
  }

  /** What the matcher reads meaning with: the word vectors' source, dimensions and vocabulary size, or `none`. */
  async identity(): Promise<string> {
    const wv = await this.#vectors();
    return wv ? `${wv.source}/${wv.dims}/${wv.size}` : 'none';
  }

  #vectors(): Promise<WordVectors | null> {
    this.#loading ??= (async () => {
      if (!this.#url) {
        this.#note = 'no word-vector file configured';
        return null;
      }
      try {
        const res = await this.#response(this.#url);
        const bytes = await readWithProgress(res, (p) => {
          for (const l of this.#listeners) l(p);
        });
        return WordVectors.fromBytes(bytes);
      } catch (e) {
        this.#note = `word vectors not loaded from ${this.#url} (${(e as Error).message}): matching without them`;
        return null;
      }
    })();
    return this.#loading;
  }

  /** The file: the body the page handed over, else fetched. */
  async #response(url: string): Promise<Response> {
    const body = this.#body;
    this.#body = null;
    if (body) return new Response(body);
    const res = await this.fetchFn(url);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return res;
  }
}

const SAMPLE =
  'Caroline: I went to the LGBTQ support group yesterday and signed up for two more sessions next week.';

/**
 * Runs the language tools the matcher reads texts with (lemmas, numbers, time expressions)
 * once on a sample: their first use builds lexicons and compiles code, which would otherwise
 * fall on the first case a person opens. `between` is awaited after each tool, so work waiting
 * on the worker (a stored file being read from the database) goes on meanwhile.
 */
export async function warmLanguage(between: () => Promise<void> = async () => {}): Promise<void> {
  contentTerms(SAMPLE);
  await between();
  numbersAsDigits(SAMPLE);
  await between();
  temporalMentions(SAMPLE, referenceDay('8 May 2023'));
}
