/** Hash routes: every trace, case, op and variable has a link. */
import { getContext, setContext } from 'svelte';

/** A list's text filter and sort column (`desc` for descending). */
interface ListQuery {
  q: string;
  sort: string;
  desc: boolean;
}

export type Route =
  | ({ name: 'traces' } & ListQuery)
  | ({
      name: 'cases';
      system: string;
      label: string;
      labelled: 'all' | 'labelled' | 'unlabelled';
    } & ListQuery)
  | {
      name: 'search';
      /** One trace, or '' for every stored trace. */
      trace: string;
      q: string;
      regex: boolean;
      /** `text`: words / regex over values; `ranked`: BM25, embeddings or hybrid. */
      mode: 'text' | 'ranked';
      /** A case (query full_node_id) whose evidence is marked in the results. */
      kase: string;
    }
  | {
      name: 'eval';
      only: 'all' | 'wrong';
      /** A confusion-matrix cell, `label|predicted` (`none` for no prediction): its cases are listed. */
      cell: string;
      /** The label source scored against (a `LabelChoice`; `file` when absent from the URL). */
      labels: string;
    }
  | { name: 'settings' }
  | { name: 'run' }
  | {
      name: 'report';
      /** The traces chosen, comma-separated ids; '' for every trace (of the chosen systems). */
      traces: string;
      /** The systems chosen, comma-separated; '' for every system. */
      systems: string;
      /** The label source (`people` when absent from the URL; see workers/report-labels.ts). */
      labels: string;
    }
  | { name: 'optimize' }
  | { name: 'labels' }
  | { name: 'compare'; a: string; b: string; q: string; show: 'flipped' | 'all' }
  | { name: 'trace'; traceId: string }
  /** The span tree of a span trace; the span selected, by its op id or (a container span) its span id. */
  | { name: 'spans'; traceId: string; op: string | null; span: string | null }
  | { name: 'case'; traceId: string; queryId: string; op: string | null }
  | { name: 'op'; traceId: string; opId: string }
  | { name: 'var'; traceId: string; varId: string; from: string | null; to: string | null }
  | { name: 'notfound'; path: string };

const enc = encodeURIComponent;

/** Links to every place in the app. */
export const href = {
  traces: (f: Partial<ListQuery> = {}) => `#/${query(listParams(f))}`,
  cases: (f: { system?: string; label?: string; labelled?: string } & Partial<ListQuery> = {}) =>
    `#/cases${query({ system: f.system, label: f.label, labelled: f.labelled, ...listParams(f) })}`,
  search: (
    f: { trace?: string; q?: string; regex?: boolean; mode?: 'text' | 'ranked'; kase?: string } = {},
  ) =>
    `#/search${query({
      trace: f.trace,
      q: f.q,
      regex: f.regex ? '1' : undefined,
      mode: f.mode === 'ranked' ? 'ranked' : undefined,
      case: f.kase,
    })}`,
  evaluation: (f: { only?: 'all' | 'wrong'; cell?: string; labels?: string } = {}) =>
    `#/eval${query({
      only: f.only === 'wrong' ? 'wrong' : undefined,
      cell: f.cell,
      labels: f.labels && f.labels !== 'file' ? f.labels : undefined,
    })}`,
  settings: () => '#/settings',
  run: () => '#/run',
  report: (f: { traces?: string[]; systems?: string[]; labels?: string } = {}) =>
    `#/report${query({
      traces: f.traces?.join(','),
      systems: f.systems?.join(','),
      labels: f.labels && f.labels !== 'people' ? f.labels : undefined,
    })}`,
  optimize: () => '#/optimize',
  labels: () => '#/labels',
  /** Compare two traces (A, B); `q`: a question (query id of A, else of B) opened. */
  compare: (f: { a?: string; b?: string; q?: string; show?: 'flipped' | 'all' } = {}) =>
    `#/compare${query({ a: f.a, b: f.b, q: f.q, show: f.show === 'all' ? 'all' : undefined })}`,
  trace: (id: string) => `#/t/${enc(id)}`,
  case: (id: string, queryId: string, op?: string | null) =>
    `#/t/${enc(id)}/case/${enc(queryId)}${query({ op })}`,
  op: (id: string, opId: string) => `#/t/${enc(id)}/op/${enc(opId)}`,
  spans: (id: string, at: { op?: string | null; span?: string | null } = {}) =>
    `#/t/${enc(id)}/spans${query({ op: at.op, span: at.span })}`,
  variable: (id: string, varId: string, diff?: { from: string; to: string }) =>
    `#/t/${enc(id)}/var/${enc(varId)}${query({ from: diff?.from, to: diff?.to })}`,
};

function listParams(f: Partial<ListQuery>): Record<string, string | undefined> {
  return { q: f.q, sort: f.sort, desc: f.desc ? '1' : undefined };
}

function query(params: Record<string, string | null | undefined>): string {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) s.set(k, v);
  const t = s.toString();
  return t ? `?${t}` : '';
}

/** Parses `#/path?query` into a route. */
function parseHash(hash: string): Route {
  const raw = hash.replace(/^#/, '') || '/';
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : raw.slice(q + 1));
  const seg = path.split('/').filter(Boolean);
  let parts: string[];
  try {
    parts = seg.map(decodeURIComponent);
  } catch {
    return { name: 'notfound', path };
  }
  const p = (k: string) => params.get(k) ?? '';
  const list: ListQuery = { q: p('q'), sort: p('sort'), desc: p('desc') === '1' };
  if (parts.length === 0) return { name: 'traces', ...list };
  if (parts[0] === 'cases' && parts.length === 1) {
    const l = p('labelled');
    return {
      name: 'cases',
      system: p('system'),
      label: p('label'),
      labelled: l === 'labelled' || l === 'unlabelled' ? l : 'all',
      ...list,
    };
  }
  if (parts[0] === 'search' && parts.length === 1)
    return {
      name: 'search',
      trace: p('trace'),
      q: p('q'),
      regex: p('regex') === '1',
      mode: p('mode') === 'ranked' ? 'ranked' : 'text',
      kase: p('case'),
    };
  if (parts[0] === 'settings' && parts.length === 1) return { name: 'settings' };
  if (parts[0] === 'run' && parts.length === 1) return { name: 'run' };
  if (parts[0] === 'report' && parts.length === 1)
    return { name: 'report', traces: p('traces'), systems: p('systems'), labels: p('labels') || 'people' };
  if (parts[0] === 'optimize' && parts.length === 1) return { name: 'optimize' };
  if (parts[0] === 'labels' && parts.length === 1) return { name: 'labels' };
  if (parts[0] === 'compare' && parts.length === 1)
    return {
      name: 'compare',
      a: p('a'),
      b: p('b'),
      q: p('q'),
      show: p('show') === 'all' ? 'all' : 'flipped',
    };
  if (parts[0] === 'eval' && parts.length === 1)
    return {
      name: 'eval',
      only: p('only') === 'wrong' ? 'wrong' : 'all',
      cell: p('cell'),
      labels: p('labels') || 'file',
    };
  if (parts[0] === 't' && parts.length >= 2) {
    const traceId = parts[1];
    if (parts.length === 2) return { name: 'trace', traceId };
    if (parts.length === 3 && parts[2] === 'spans')
      return { name: 'spans', traceId, op: params.get('op'), span: params.get('span') };
    if (parts.length === 4 && parts[2] === 'case')
      return { name: 'case', traceId, queryId: parts[3], op: params.get('op') };
    if (parts.length === 4 && parts[2] === 'op') return { name: 'op', traceId, opId: parts[3] };
    if (parts.length === 4 && parts[2] === 'var')
      return { name: 'var', traceId, varId: parts[3], from: params.get('from'), to: params.get('to') };
  }
  return { name: 'notfound', path };
}

class Router {
  #hash = $state('');
  readonly route: Route = $derived(parseHash(this.#hash));

  constructor(private readonly win: Window) {
    this.#hash = win.location.hash;
  }

  /** Follows hash changes until the returned function is called. */
  listen(): () => void {
    const on = () => {
      this.#hash = this.win.location.hash;
    };
    this.win.addEventListener('hashchange', on);
    return () => this.win.removeEventListener('hashchange', on);
  }

  go(link: string, options: { replace?: boolean } = {}): void {
    if (options.replace) {
      this.win.history.replaceState(null, '', link);
      this.#hash = this.win.location.hash;
    } else {
      this.win.location.hash = link.replace(/^#/, '');
      // The route follows at once (hashchange comes a task later), so code right after
      // go() (focusing the new view's field) sees the new view on the next tick.
      this.#hash = this.win.location.hash;
    }
  }
}

const KEY = Symbol('router');
export function setupRouter(win: Window): Router {
  return setContext(KEY, new Router(win));
}
export function useRouter(): Router {
  return getContext<Router>(KEY);
}
