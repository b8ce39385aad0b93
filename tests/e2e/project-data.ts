/**
 * The project's own data for the screenshot scripts (tests/e2e/screenshots*.ts), written
 * into a temp folder at run time and never committed. Screenshots are copies of what they
 * show, so none of them may show LoCoMo or RealMem text (shared data is never committed):
 * they show the demo conversation (scripts/demo/conversation.json, written for the
 * project), its demo trace (public/demo/demo-trace.json), a fault-injected benchmark of it
 * (the four reference systems offline, as docs/examples/README.md makes it), a run of it
 * written as OTLP/JSON by the SDK, and the synthetic runs of bench/ (made-up words).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { syntheticDocument } from '../../bench/lanes-synthetic.ts';
import { exportSmartcomment } from '../../src/core/trace/index.ts';
import { seededIds, steppingClock, Tracer } from '../../src/sdk/index.ts';
import { otelFileSink } from '../../src/sdk/otel-file.node.ts';
import {
  type Conversation,
  createSystem,
  generateBenchmark,
  loadLocomo,
  runSystem,
  SPLIT_OF,
  SYSTEM_NAMES,
  type SystemName,
  type SystemSettings,
} from '../../src/systems/index.ts';
import { ROOT } from './harness.ts';

/** The demo conversation, LoCoMo's layout (one sample): the Run and Optimise views read it as LoCoMo. */
export const DEMO_CONVERSATION = join(ROOT, 'scripts/demo/conversation.json');
/** The app's demo trace (`npm run demo:trace`): Mem0 offline on the demo conversation. */
export const DEMO_TRACE = join(ROOT, 'public/demo/demo-trace.json');

export function demoConversation(): Conversation {
  return loadLocomo(JSON.parse(readFileSync(DEMO_CONVERSATION, 'utf8')))[0];
}

/** A temp folder for one script's data; `remove()` deletes it. */
export function tempDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'memtrace-shots-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

// Fixed clock and ids: the same screenshots on every run.
const START = Date.UTC(2026, 0, 15, 10);
let seed = 100;
const fixedRun = () => ({ clock: steppingClock(START, 3), ids: seededIds(seed++) });

interface DemoBench {
  /** Every graph, sorted by path (`<split>/<split>-demo-1-<kind>-demo-1-qa-<n>.json`, `<split>/<split>-demo-1-base.json`). */
  files: string[];
  /** The base run of each split (all 11 questions, ordinary failures labelled by counterfactual repair). */
  base: Record<'rag' | 'mem0' | 'evermemos' | 'long_context', string>;
}

/**
 * The fault-injected benchmark of the demo conversation in `dir`: the four reference systems
 * offline, 3 injected faults per type and system, the ordinary failures labelled by
 * counterfactual repair — the same graphs as `memtrace inject --per-type 3` (docs/examples).
 */
export async function writeDemoBench(dir: string): Promise<DemoBench> {
  const conv = demoConversation();
  const files: string[] = [];
  for (const system of SYSTEM_NAMES)
    await generateBenchmark({
      system,
      dataset: 'locomo',
      conversations: [conv],
      perType: 3,
      naturalPerConversation: 20,
      tracerOptions: fixedRun,
      // `<split>/<split>-<name>`: the app's import panel keys its results by file name, and a pick
      // of two files of one name (rag/demo-1-base.json, mem0/demo-1-base.json) breaks it.
      write: (rel, doc) => {
        const path = join(dir, rel.replace(/^([^/]+)\//, '$1/$1-'));
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, exportSmartcomment(doc));
        files.push(path);
      },
    });
  files.sort();
  const baseOf = (split: string) => files.find((f) => f.endsWith(`${split}/${split}-${conv.id}-base.json`))!;
  return {
    files,
    base: {
      rag: baseOf('rag'),
      mem0: baseOf('mem0'),
      evermemos: baseOf('evermemos'),
      long_context: baseOf('long_context'),
    },
  };
}

/**
 * One reference system offline on the demo conversation with changed settings (e.g. Mem0 with
 * a shallower search, `{ topK: 2 }`), as a smartcomment file — a rerun to compare with a base run.
 */
export async function writeDemoRun(
  dir: string,
  system: SystemName,
  settings: SystemSettings,
  file = `${system}-demo-1-${Object.entries(settings)
    .map(([k, v]) => `${k}-${v}`)
    .join('-')}.json`,
): Promise<string> {
  const tracer = new Tracer({
    ...fixedRun(),
    filename: `memtrace-${system}`,
    metadata: {
      system: SPLIT_OF[system],
      dataset: 'locomo',
      conversation: 'demo-1',
      mode: 'offline',
      ...settings,
    },
  });
  await runSystem(createSystem(system, settings), demoConversation(), { tracer });
  const path = join(dir, file);
  writeFileSync(path, exportSmartcomment(tracer.document()));
  return path;
}

/** EverMemOS offline on the demo conversation, written as OTLP/JSON (GenAI names) by the SDK's OtelSink. */
export async function writeDemoOtlp(dir: string): Promise<string> {
  const path = join(dir, 'evermemos-demo.otlp.json');
  const tracer = new Tracer({
    ...fixedRun(),
    sink: otelFileSink(path, { flavour: 'genai', exact: true, serviceName: 'memtrace-evermemos' }),
    filename: 'memtrace-evermemos',
    metadata: { system: 'evermemos', dataset: 'locomo', conversation: 'demo-1', mode: 'offline' },
  });
  await runSystem(createSystem('evermemos'), demoConversation(), { tracer });
  await tracer.finish();
  return path;
}

/**
 * The demo conversation as a LoCoMo file of several conversations for the Optimise view
 * (training and held-out ones must differ): the same dialogue under one id per group of
 * questions (`demo-1-q1-3` holds questions 1–3, …), so no question is in two of them.
 */
export function writeDemoQuestionSplit(dir: string, groups = 4): string {
  const sample = JSON.parse(readFileSync(DEMO_CONVERSATION, 'utf8'));
  const qa: unknown[] = sample.qa;
  const size = Math.ceil(qa.length / groups);
  const samples = Array.from({ length: groups }, (_, g) => ({
    ...sample,
    sample_id: `demo-1-q${g * size + 1}-${Math.min(qa.length, (g + 1) * size)}`,
    qa: qa.slice(g * size, (g + 1) * size),
  })).filter((s) => s.qa.length > 0);
  const path = join(dir, 'demo-question-split.json');
  writeFileSync(path, JSON.stringify(samples, null, 2));
  return path;
}

/** The 100k-variable synthetic run of the lane-view benchmark (bench/lanes-synthetic.ts) as a file (~100 MB). */
export function writeLanesSynthetic(dir: string, variables = 100_000): string {
  const path = join(dir, `synthetic-${variables / 1000}k.json`);
  writeFileSync(path, exportSmartcomment(syntheticDocument(variables), { indent: 0 }));
  return path;
}
