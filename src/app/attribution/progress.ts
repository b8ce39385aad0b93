/** The live view of an agent run's progress, folded from the worker's events. */
import type { AgentRunEvent } from '../../../workers/api.ts';
import { type AgentProgress, MAX_NOTES } from '../../db/agent-runs.ts';

/** Folds a live event into the progress shown (pure; `saved` replaces it with the stored summary). */
export function applyEvent(p: AgentProgress, e: AgentRunEvent): AgentProgress {
  switch (e.type) {
    case 'step':
      return { ...p, step: e.step, notes: [...p.notes, { step: e.step, note: e.note }].slice(-MAX_NOTES) };
    case 'explore':
      return {
        ...p,
        current: e.var_id,
        explored:
          p.current && p.current !== e.var_id && !p.explored.includes(p.current)
            ? [...p.explored, p.current]
            : p.explored,
      };
    case 'frontier':
      return { ...p, frontier: [...e.var_ids] };
    case 'tokens':
      return { ...p, input_tokens: e.input_tokens, output_tokens: e.output_tokens };
    case 'saved':
      return { ...e.progress, notes: e.progress.notes.length >= p.notes.length ? e.progress.notes : p.notes };
  }
}
