/**
 * The app's demo trace: Mem0 (classic design, offline deterministic mode) over a short
 * conversation the project wrote itself (scripts/demo/conversation.json, LoCoMo layout),
 * with its failures labelled by counterfactual repair. Reproducible: fixed clock and ids.
 * Writes public/demo/demo-trace.json.  Usage: npm run demo:trace
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { openTrace } from '../src/core/graph/index.ts';
import { exportSmartcomment } from '../src/core/trace/index.ts';
import { seededIds, steppingClock, Tracer } from '../src/sdk/index.ts';
import {
  annotationOf,
  counterfactualLabel,
  createSystem,
  loadLocomo,
  runSystem,
} from '../src/systems/index.ts';

const root = join(import.meta.dirname, '..');
const out = join(root, 'public/demo/demo-trace.json');
const [conv] = loadLocomo(JSON.parse(readFileSync(join(root, 'scripts/demo/conversation.json'), 'utf8')));

const tracer = new Tracer({
  clock: steppingClock(new Date(2026, 0, 15, 10, 0, 0, 0).getTime(), 3),
  ids: seededIds(2026),
  filename: 'memtrace-mem0',
  metadata: {
    memtracebench_graph_filename: 'demo-trace.json',
    system: 'mem0',
    dataset: 'demo',
    conversation: conv.id,
    mode: 'offline',
    llm_model: 'offline-deterministic',
    description:
      'Demo: Mem0 (offline deterministic mode) on a short conversation written for MemTrace Workbench.',
  },
});
const base = await runSystem(createSystem('mem0'), conv, { tracer });
const ctx = { makeSystem: () => createSystem('mem0'), conversation: conv };
for (const a of base.answers) {
  if (a.correct) continue;
  const q = conv.questions.find((x) => x.id === a.questionId)!;
  const label = await counterfactualLabel(ctx, q, base.events);
  if (label) tracer.annotate(annotationOf(conv, q, a, label));
}
const doc = tracer.document();
const text = exportSmartcomment(doc);
const opened = openTrace(text, { file: out });
if (!opened.ok || opened.issues.length)
  throw new Error(`demo trace does not load cleanly: ${JSON.stringify(opened.issues)}`);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, text);
const failed = base.answers.filter((a) => !a.correct).length;
console.log(
  `${out}: ${doc.data.nodes.length} variables, ${doc.data.operations.length} ops, ${doc.data.edges.length} edges; ` +
    `${base.answers.length - failed}/${base.answers.length} correct; labels: ${(doc.data.annotations ?? []).map((x) => x.final_error_type).join(', ')}`,
);
