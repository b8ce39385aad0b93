/**
 * Browser harness for the lane and neighbourhood views (tests/e2e/lanes-view.test.ts,
 * bench/lanes-browser.ts). Query: `?file=<name in /data/>` or `?synthetic=<variables>`,
 * `&view=lanes|neighbourhood`, `&op=<op name>` (neighbourhood focus), `&pack=0`,
 * `&theme=light|dark`. Results are reported on `window.__lanes`.
 */
import { mount } from 'svelte';
import type { FrameStats } from '../../src/app/lanes/draw.ts';
import type { LaneSelection } from '../../src/app/lanes/index.ts';
import { answerOpOf, listCases } from '../../src/core/cases/index.ts';
import { buildGraph, openTrace, type TraceGraph } from '../../src/core/graph/index.ts';
import { syntheticDocument } from '../lanes-synthetic.ts';
import Harness from './Harness.svelte';

interface HarnessState {
  ready: boolean;
  error?: string;
  graphMs: number;
  firstFrameMs: number;
  variables: number;
  /** Marks drawn (failed answers and labels). */
  marks: number;
  frames: { t: number; ms: number; mode: string; items: number }[];
  selections: (LaneSelection | null)[];
  api: () => {
    pointOf(sel: LaneSelection): { x: number; y: number } | null;
    zoom(fx: number, fy?: number): void;
    fitAll(): void;
    reveal(sel: LaneSelection): void;
    setBands(open: boolean): void;
  };
  graph: TraceGraph;
}

declare global {
  interface Window {
    __lanes: HarnessState;
  }
}

const params = new URLSearchParams(location.search);
const state = { ready: false, frames: [], selections: [] } as unknown as HarnessState;
window.__lanes = state;
if (params.get('theme')) document.documentElement.dataset.theme = params.get('theme')!;

async function main() {
  const t0 = performance.now();
  let graph: TraceGraph;
  const file = params.get('file');
  if (file) {
    const text = await (await fetch(`./data/${encodeURIComponent(file)}`)).text();
    const r = openTrace(text, { file });
    if (!r.ok) throw new Error(`${file}: ${r.issues[0]?.message}`);
    graph = r.graph;
  } else {
    graph = buildGraph(syntheticDocument(Number(params.get('synthetic') ?? 100_000)));
  }
  state.graph = graph;
  state.variables = graph.varId.length;
  state.graphMs = performance.now() - t0;
  const view = params.get('view') === 'neighbourhood' ? 'neighbourhood' : 'lanes';
  const opName = params.get('op');
  const op = opName ? graph.opName.lastIndexOf(opName) : -1;
  // Marks as the app shows them: the answer op of every failed question (labels where the file has them).
  const marks = listCases(graph).flatMap((c) => {
    const o = answerOpOf(graph, c);
    const out: { opId: string; kind: 'answer' | 'label'; note: string }[] = [];
    if (o >= 0) out.push({ opId: graph.opId[o], kind: 'answer', note: c.question });
    if (c.label?.opId) out.push({ opId: c.label.opId, kind: 'label', note: c.label.errorType });
    return out;
  });
  state.marks = marks.length;
  const start = performance.now();
  let first = true;
  const harness = mount(Harness, {
    target: document.getElementById('app')!,
    props: {
      graph,
      view,
      pack: params.get('pack') !== '0',
      marks,
      focus: op >= 0 ? { kind: 'op', id: graph.opId[op] } : null,
      onselect: (sel: LaneSelection | null) => state.selections.push(sel),
      onframe: (s: FrameStats) => {
        state.frames.push({ t: performance.now(), ms: s.ms, mode: s.mode, items: s.items });
        if (first) {
          first = false;
          // The frame is on screen once the browser gets to the next one.
          requestAnimationFrame(() => {
            state.firstFrameMs = performance.now() - start;
            state.ready = true;
          });
        }
      },
    },
  });
  state.api = () => harness.api()!;
  if (view === 'neighbourhood')
    requestAnimationFrame(() => requestAnimationFrame(() => (state.ready = true)));
}

main().catch((e) => {
  state.error = String(e);
  state.ready = true;
});
