/**
 * Every `memtrace` command by name, with the one line `memtrace --help` shows for it. A
 * command's module (its flags, its code and the libraries under it) is imported only when that
 * command runs, so `--help` and a light command load none of the others (in the bundle each is
 * its own chunk). A command's summary lives here only; its usage and flags live in its module.
 */
import type { AnyCommand } from './command.ts';

/** One command of the table: its name and summary, and how to load the rest. */
export interface CommandEntry {
  name: string;
  summary: string;
  /** The command's module, imported on first use. */
  load(): Promise<AnyCommand>;
}

/** The commands in the order `--help` lists them. */
export const COMMAND_TABLE: readonly CommandEntry[] = [
  {
    name: 'validate',
    summary: 'check trace files; exit 0 when all load (warnings allowed)',
    load: async () => (await import('./commands/validate.ts')).validate,
  },
  {
    name: 'stats',
    summary: 'counts of one trace: records, messages, failed questions, categories, import warnings',
    load: async () => (await import('./commands/stats.ts')).stats,
  },
  {
    name: 'cases',
    summary: 'failed questions (llm-judge score 0) and annotated questions, with labels',
    load: async () => (await import('./commands/cases.ts')).cases,
  },
  {
    name: 'export',
    summary:
      'write a trace back out (smartcomment JSON, or OTLP/JSON with GenAI / OpenInference spans; lossless)',
    load: async () => (await import('./commands/export.ts')).exportCommand,
  },
  {
    name: 'search',
    summary: 'rank variables for a query by BM25, dense embeddings or hybrid RRF',
    load: async () => (await import('./commands/search.ts')).search,
  },
  {
    name: 'chat',
    summary: 'send one prompt to an LLM provider and print the reply (tests a provider setup)',
    load: async () => (await import('./commands/chat.ts')).chat,
  },
  {
    name: 'attribute',
    summary: 'name the decisive faulty operation of failed questions',
    load: async () => (await import('./commands/attribute.ts')).attribute,
  },
  {
    name: 'judge',
    summary:
      "the carrying test learned from each trace's judge, and the verdicts it contradicts (candidate judge errors)",
    load: async () => (await import('./commands/judge.ts')).judge,
  },
  {
    name: 'bench',
    summary: 'score an attribution method on labelled traces (ETA / OIA, micro and macro, confusion, cost)',
    load: async () => (await import('./commands/bench.ts')).bench,
  },
  {
    name: 'report',
    summary:
      'system-level error report of failed cases: counts, rates, feature lifts, clusters, optional narrative',
    load: async () => (await import('./commands/report.ts')).report,
  },
  {
    name: 'optimize',
    summary:
      'rewrite the prompts behind attributed failures, round by round, keeping a rewrite only if held-out does not drop',
    load: async () => (await import('./commands/optimize.ts')).optimize,
  },
  {
    name: 'run',
    summary: 'run a reference memory system on a data set conversation and write its execution graph',
    load: async () => (await import('./commands/run.ts')).run,
  },
  {
    name: 'inject',
    summary:
      'generate fault-injected graphs with exact labels (and counterfactual labels of ordinary failures)',
    load: async () => (await import('./commands/inject.ts')).inject,
  },
  {
    name: 'make-bench',
    summary:
      'write the labelled benchmark of LLM-written memories (recorded LoCoMo / RealMem memories replayed)',
    load: async () => (await import('./commands/make-bench.ts')).makeBench,
  },
  {
    name: 'agreement',
    summary:
      'agreement between annotators: per pair n, op / type disagreement, Cohen κ; Fleiss κ; disputed cases',
    load: async () => (await import('./commands/agreement.ts')).agreement,
  },
  {
    name: 'compare',
    summary:
      'compare two runs: flipped questions (fixed / broken / same), first divergence, memory at question time',
    load: async () => (await import('./commands/compare.ts')).compare,
  },
  {
    name: 'serve',
    summary: 'receive traces over OTLP/HTTP into a folder and serve the workbench that lists them live',
    load: async () => (await import('./commands/serve.ts')).serve,
  },
];
