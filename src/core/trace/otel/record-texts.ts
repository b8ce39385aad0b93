/**
 * Successive contents of one memory record kept as slices of shared strings.
 *
 * A record that a system keeps rewriting — a context window that slides, a transcript or a
 * summary that grows — is written in full by every update span, so a trace can hold the
 * same lines hundreds of times (a 100 MB file, 1 MB of distinct text). Each content is
 * decoded from its span anyway; when it begins with the end of the record's previous
 * content (lines dropped at the front, lines added at the back), only what it adds is
 * kept: a record's contents are laid end to end in a *run*, the run is joined into one
 * string every megabyte or so, and each content becomes a slice of it (V8 keeps a slice of
 * 13 or more characters as a view on its parent). The decoded copies die young instead of
 * being copied into the old generation, and the document holds each line about once.
 * Values are equal to what was decoded.
 */

/** Contents shorter than this are left as they are. */
const MIN_LENGTH = 1024;
/** Decoded characters held before the runs are joined (the copies die then). */
const BATCH = 1 << 20;

/** What holds a content (a memory record of a span). */
export interface ContentHolder {
  content: string | null;
}

/** A record's contents: the run is `shared` (from run offset `sharedAt`) followed by `tails`. */
interface Run {
  shared: string;
  sharedAt: number;
  tails: string[];
  length: number;
  /** The latest content and where it starts in the run. */
  last: string;
  lastAt: number;
  /** Holders waiting for their slice: content = run[start, end). */
  waiting: { holder: ContentHolder; start: number; end: number }[];
}

export class RecordTexts {
  private readonly runs = new Map<string, Run>();
  private held = 0;

  /** Files `holder.content`, the latest content of the record `key`, to become a slice at the next flush. */
  add(key: string, holder: ContentHolder): void {
    const text = holder.content;
    if (text === null || text.length < MIN_LENGTH) return;
    let run = this.runs.get(key);
    const at = run ? overlapStart(run.last, text) : -1;
    if (!run || at < 0) {
      if (run) this.join(run);
      run = {
        shared: '',
        sharedAt: 0,
        tails: [text],
        length: text.length,
        last: text,
        lastAt: 0,
        waiting: [],
      };
      this.runs.set(key, run);
      run.waiting.push({ holder, start: 0, end: text.length });
    } else {
      // text = run.last.slice(at) + tail: the run grows by the tail only.
      const tail = text.slice(run.last.length - at);
      if (tail) run.tails.push(tail);
      run.length += tail.length;
      run.lastAt += at;
      run.last = text;
      run.waiting.push({ holder, start: run.lastAt, end: run.length });
    }
    this.held += text.length;
    if (this.held >= BATCH) this.flush();
  }

  /** Joins every run and hands each waiting holder its slice. */
  flush(): void {
    for (const run of this.runs.values()) this.join(run);
    this.held = 0;
  }

  private join(run: Run): void {
    if (!run.waiting.length) return;
    // Text before the first waiting content is needed no more.
    const from = run.waiting[0].start;
    const head = run.shared.slice(from - run.sharedAt);
    // A run of one content (a record written once) is that content: nothing to join.
    const shared = !head && run.tails.length === 1 ? run.tails[0] : [head, ...run.tails].join('');
    for (const w of run.waiting) w.holder.content = shared.slice(w.start - from, w.end - from);
    run.shared = shared;
    run.sharedAt = from;
    run.tails = [];
    run.waiting = [];
    run.last = shared.slice(run.lastAt - from);
  }
}

/**
 * Where a suffix of `prev` starts that `next` begins with (the record kept its later lines),
 * or -1: 0 when `next` begins with all of `prev`, else the start of a line of `prev`, the
 * kept part at least MIN_LENGTH long.
 */
function overlapStart(prev: string, next: string): number {
  // Slices compared with === (a memory compare), not startsWith (char by char, 20× slower here).
  const begins = (part: string) => next.length >= part.length && next.slice(0, part.length) === part;
  if (begins(prev)) return 0;
  const nl = next.indexOf('\n');
  if (nl < 0) return -1;
  const first = next.slice(0, nl + 1);
  for (let at = prev.indexOf(first, 1); at >= 0; at = prev.indexOf(first, at + 1)) {
    if (prev.length - at < MIN_LENGTH) return -1;
    if (prev[at - 1] === '\n' && begins(prev.slice(at))) return at;
  }
  return -1;
}
