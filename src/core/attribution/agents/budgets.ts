/**
 * The agents' budgets: the named presets (the paper's released values, or scaled to a
 * smaller model's context window) and the knobs that override them.
 */
import type { ChatModel } from '../../llm/index.ts';

/**
 * Named budget sets. `paper` (the default) is the paper's released values: compress past 272k
 * tokens, summarise at most 1M, pages of 128k and windows of 32k characters, OBS blocks tied
 * on created_at ordered by op id. `window-scaled` fits a smaller model: compress at 80 % of its
 * context window, summarise at most 90 % of it, pages and windows at most ~30 % of it, OBS ties
 * in file order.
 */
export type AgentPreset = 'paper' | 'window-scaled';
/** Every preset name, for flags and pickers. */
export const AGENT_PRESETS: readonly AgentPreset[] = ['paper', 'window-scaled'];

/** Knobs of both agents: a preset (default `paper`), and any field set here overrides it. */
export interface AgentOptions {
  preset?: AgentPreset;
  /** Reasoning iterations (default 200). */
  maxSteps?: number;
  /** Sampling temperature (default 1.0). */
  temperature?: number;
  /** Context window in tokens; default the model's `capabilities.contextWindow`, else 272k. */
  contextWindow?: number;
  /** Compress when the conversation passes this many tokens (paper: 272k; window-scaled: 80 % of the window). */
  compressAt?: number;
  /** At most this many tokens of history are summarised in one call (paper: 1M; window-scaled: min(1M, 90 %)). */
  compressCap?: number;
  /** Characters per page of an explore view or value (paper: 128k; window-scaled: less on small windows). */
  pageChars?: number;
  /** OBS window size in characters (paper: 32k; window-scaled: less on small windows). */
  windowChars?: number;
  /** OBS blocks with the same created_at: by op id (paper) or in file order (window-scaled). */
  obsTies?: 'op_id' | 'file';
  /** Add the per-system prior text when the system is known (default true). */
  systemPriors?: boolean;
  /** How the model picks actions: `auto` uses native tools when the provider has them. */
  mode?: 'auto' | 'json' | 'tool';
}

/** The context window assumed when neither the options nor the model name one (the paper's model). */
export const DEFAULT_CONTEXT_WINDOW = 272_000;
/** The paper's compression threshold, in tokens. */
export const PAPER_COMPRESS_AT = 272_000;
/** The paper's cap on the history summarised in one call, in tokens. */
export const PAPER_COMPRESS_CAP = 1_000_000;
/** The paper's iteration budget. */
export const MAX_STEPS = 200;

/** Every budget of a run, resolved (`budgetsOf`). */
export interface Budgets {
  preset: AgentPreset;
  maxSteps: number;
  temperature: number;
  window: number;
  compressAt: number;
  compressCap: number;
  pageChars: number;
  windowChars: number;
  systemPriors: boolean;
  mode: 'auto' | 'json' | 'tool';
  obsTies: 'op_id' | 'file';
}

/** The budgets of a run: the preset's values, with any field of `o` overriding them. */
export function budgetsOf(model: ChatModel, o: AgentOptions = {}): Budgets {
  const preset = o.preset ?? 'paper';
  if (!AGENT_PRESETS.includes(preset)) throw new RangeError(`unknown agent preset "${preset}"`);
  const window = o.contextWindow ?? model.capabilities.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  // ~4 characters per token; one view may take at most ~30 % of the window.
  const viewChars = Math.max(4_000, Math.floor(window * 4 * 0.3));
  const scaled = preset === 'window-scaled';
  return {
    preset,
    maxSteps: o.maxSteps ?? MAX_STEPS,
    temperature: o.temperature ?? 1.0,
    window,
    compressAt: o.compressAt ?? (scaled ? Math.floor(window * 0.8) : PAPER_COMPRESS_AT),
    compressCap:
      o.compressCap ?? (scaled ? Math.min(PAPER_COMPRESS_CAP, Math.floor(window * 0.9)) : PAPER_COMPRESS_CAP),
    pageChars: o.pageChars ?? (scaled ? Math.min(128_000, viewChars) : 128_000),
    windowChars: o.windowChars ?? (scaled ? Math.min(32_000, viewChars) : 32_000),
    systemPriors: o.systemPriors ?? true,
    mode: o.mode ?? 'auto',
    obsTies: o.obsTies ?? (scaled ? 'file' : 'op_id'),
  };
}
