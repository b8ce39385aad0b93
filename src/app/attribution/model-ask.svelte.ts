/**
 * "Ask the model" on an uncertain verdict: the engine worker attributes the case again with the
 * page's chat model as its stage judge (EngineApi.askModel); the model stays here (a comlink
 * proxy of `modelPort`, so keys never leave the page). Its calls are metered twice: into the
 * settings' session totals (as every call) and into this ask's own meter, shown with the result.
 */
import * as Comlink from 'comlink';
import type { ModelJudgedVerdict } from '../../../workers/api.ts';
import { emptyUsageTotals, metered, redact, UsageMeter, type UsageTotals } from '../../core/llm/index.ts';
import type { LlmSettings } from '../llm/settings.svelte.ts';
import type { WebLLMState } from '../llm/webllm.svelte.ts';
import type { Services } from '../state/services.ts';
import { modelInfo, modelPort } from './model-port.ts';

/** Why no model can be asked now (null: the active profile can be asked). */
export function modelMissing(settings: LlmSettings, webllm: WebLLMState): string | null {
  const p = settings.active;
  if (!p)
    return 'No model is set up: add an API profile (OpenAI-compatible or Anthropic) or the in-browser model in Settings.';
  if (p.kind === 'webllm' && !webllm.engineFor(p.model))
    return `The in-browser model ${p.model} is not loaded: load it in Settings first.`;
  return null;
}

/** One ask of one case: running, then its result, a cancellation or an error. */
export class ModelAsk {
  status = $state<'idle' | 'running' | 'done' | 'cancelled' | 'failed'>('idle');
  /** Model calls answered so far (progress while running). */
  answered = $state(0);
  result = $state.raw<ModelJudgedVerdict | null>(null);
  /** This ask's requests and tokens (the settings' usage, for this ask alone). */
  usage = $state.raw<UsageTotals>(emptyUsageTotals());
  error = $state<string | null>(null);
  /** The profile asked ("name · model"). */
  asked = $state('');
  #abort: AbortController | null = null;

  constructor(
    private readonly services: Services,
    private readonly settings: LlmSettings,
  ) {}

  async ask(traceId: string, queryId: string): Promise<void> {
    if (this.status === 'running') return;
    const meter = new UsageMeter();
    meter.subscribe(() => {
      this.usage = meter.totals();
      this.answered = meter.records.length;
    });
    Object.assign(this, { status: 'running', answered: 0, result: null, error: null });
    this.usage = emptyUsageTotals();
    const abort = new AbortController();
    this.#abort = abort;
    try {
      const model = metered(this.settings.chatModel(undefined, `ask the model ${queryId}`), meter);
      this.asked = `${this.settings.active?.name ?? model.provider} · ${model.model}`;
      const port = Comlink.proxy(modelPort(model));
      this.result = await this.services.analysis.askModel(
        traceId,
        queryId,
        modelInfo(model),
        port,
        abort.signal,
      );
      this.status = 'done';
    } catch (e) {
      this.status = abort.signal.aborted ? 'cancelled' : 'failed';
      // Provider errors are redacted where they are made; this keeps anything key-shaped out too.
      this.error = redact(e instanceof Error ? e.message : String(e));
    } finally {
      this.#abort = null;
    }
  }

  cancel(): void {
    this.#abort?.abort();
  }
}
