/**
 * The loop's token cost per round, measured against the prompt-sensitive scripted model
 * (tests/optimize/prompt-sensitive-model.ts: a test double served over real HTTP on
 * 127.0.0.1; it reports ⌈characters / 4⌉ tokens of each request and reply, so the counts
 * follow the real prompt sizes, not a model's tokenizer). Reference Mem0 in LLM mode on
 * LoCoMo: one training conversation per round, one held-out conversation, the first N
 * sessions, sampled questions. Counts are the loop's own per-role meters, checked against
 * the calls the server answered.
 * `npx tsx bench/optimize-cost.ts [--rounds 3] [--sessions 3] [--questions 10]` writes its section of RESULTS.md.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { OpenAICompatibleChatModel } from '../src/core/llm/index.ts';
import { loadLocomo } from '../src/systems/index.ts';
import { type OptimizeState, optimizePrompts, referenceTarget } from '../src/systems/optimize/index.ts';
import { startScriptedLlmServer } from '../tests/helpers/scripted-llm-server.ts';
import { promptSensitiveModel } from '../tests/optimize/prompt-sensitive-model.ts';
import { machineFacts, writeResultsSection } from './stats-util.ts';

const machine = machineFacts(); // at the start: the load before the work, the commit measured

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    sessions: { type: 'string', default: '3' },
    questions: { type: 'string', default: '10' },
  },
});
const convs = loadLocomo(JSON.parse(readFileSync('../shared/data/locomo/locomo-dev.json', 'utf8')));
const [train, heldOut] = [convs.slice(0, 1).concat(convs.slice(2, 4)), [convs[1]]];
const server = await startScriptedLlmServer(
  promptSensitiveModel({ rewrite: (v) => `${v}\nRULE-A`, favoured: [] }),
);
const model = new OpenAICompatibleChatModel({ baseUrl: server.base, model: 'prompt-sensitive-test-double' });
let saved: OptimizeState | null = null;
const started = Date.now();
const s = await optimizePrompts(
  referenceTarget('mem0'),
  {
    train,
    heldOut,
    rounds: Number(values.rounds),
    maxSessions: Number(values.sessions),
    trainQuestions: Number(values.questions),
    heldOutQuestions: Number(values.questions),
    models: { qa: model, judge: model, optimizer: model },
  },
  {
    load: async () => saved,
    save: async (x) => {
      saved = structuredClone(x);
    },
  },
  { onProgress: (m) => console.error(m) },
);
const seconds = (Date.now() - started) / 1000;
await server.close();
const sum = (c: OptimizeState['baseline_cost']) => ({
  calls: Object.values(c).reduce((n, x) => n + x.calls, 0),
  input: Object.values(c).reduce((n, x) => n + x.inputTokens, 0),
  output: Object.values(c).reduce((n, x) => n + x.outputTokens, 0),
});
const counted = [s.baseline_cost, ...s.rounds.map((r) => r.cost)].reduce((n, c) => n + sum(c).calls, 0);
if (counted !== server.calls.length)
  throw new Error(`counted ${counted} calls, the server answered ${server.calls.length}`);
const role = (c: OptimizeState['baseline_cost'], r: string) =>
  c[r] ? `${c[r].calls} / ${(c[r].inputTokens + c[r].outputTokens).toLocaleString('en')}` : '–';
const b = sum(s.baseline_cost);
const rows = [
  `| held-out baseline | – | ${role(s.baseline_cost, 'qa')} | ${role(s.baseline_cost, 'judge')} | – | ${b.calls} | ${(b.input + b.output).toLocaleString('en')} |`,
  ...s.rounds.map((r) => {
    const t = sum(r.cost);
    return `| round ${r.round} (${r.conversation}, ${r.failures} failures) | ${r.decision} | ${role(r.cost, 'qa')} | ${role(r.cost, 'judge')} | ${role(r.cost, 'optimizer')} | ${t.calls} | ${(t.input + t.output).toLocaleString('en')} |`;
  }),
];
const body = [
  `\`npx tsx bench/optimize-cost.ts\` — reference Mem0 in LLM mode, ${s.rounds.length} round(s) (training: ${train
    .slice(0, s.rounds.length)
    .map((c) => c.id)
    .join(
      ', ',
    )}; held-out: ${heldOut.map((c) => c.id).join(', ')}), first ${values.sessions} sessions, ${values.questions} sampled questions`,
  'per conversation, attribution by evidence-flow (no model). Every role is the prompt-sensitive scripted model, a',
  'test double over HTTP that reports ⌈characters / 4⌉ tokens: the counts follow the prompt sizes the loop sends, not',
  "a real tokenizer or a real model's answers. A round = training run, attribution, feedback per failure, aggregation,",
  'rewrite, and the acceptance test (training and held-out reruns with the candidate prompts).',
  '',
  '| step | decision | QA calls / tokens | judge calls / tokens | optimiser calls / tokens | calls | tokens |',
  '| --- | --- | --- | --- | --- | --- | --- |',
  ...rows,
  '',
  `Every call the server answered (${server.calls.length}) is in the counts. ${s.status}: ${s.message}; ${seconds.toFixed(1)} s in all on`,
  `${machine}.`,
].join('\n');
writeResultsSection('Prompt-optimisation loop: tokens per round (scripted model)', body);
console.log(body);
