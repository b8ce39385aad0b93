/**
 * Prompts of the reference systems, by name. The names are the variable names the
 * traces carry (category `prompt`), so prompt optimisation can find and replace them.
 * Templates use `{{name}}` placeholders.
 */

export type PromptRegistry = Record<string, string>;

export const DEFAULT_PROMPTS: PromptRegistry = {
  'fact-extraction-system-prompt':
    'You are a Personal Information Organizer, specialized in accurately storing facts, user memories, and preferences. ' +
    'Extract relevant pieces of information from the conversation and organize them into distinct, manageable facts. ' +
    'Keep names, dates, places, plans, preferences and relative time expressions (resolve them against the message date). ' +
    'Return JSON: {"facts": ["...", "..."]}. Return {"facts": []} when there is nothing worth remembering.',
  'memory-update-decision-prompt':
    'You are a smart memory manager which controls the memory of a system. Compare newly retrieved facts with the existing memory. ' +
    'For each new fact decide: ADD (new information), UPDATE (refines an existing memory; keep the same id), ' +
    'DELETE (contradicts an existing memory) or NONE (already present). ' +
    'Existing memories:\n{{old_memory}}\n\nNew facts:\n{{facts}}\n\n' +
    'Return JSON: {"memory": [{"id": "<existing id or new>", "text": "...", "event": "ADD|UPDATE|DELETE|NONE", "old_memory": "..."}]}',
  'question-answering-prompt':
    'You are an intelligent memory assistant tasked with retrieving accurate information from conversation memories. ' +
    'Use the timestamps to resolve relative dates; if memories contradict each other, the most recent wins. ' +
    'Answer in under 6 words.\n\nMemories:\n{{memories}}\n\nQuestion: {{question}}\nAnswer:',
  'boundary-detection-prompt':
    'You segment a conversation into coherent episodes. Given the current segment and the new message, ' +
    'decide whether the segment ends before the new message (topic change, time gap, or a closed exchange). ' +
    'Return JSON: {"boundary": true|false}.\n\nCurrent segment:\n{{segment}}\n\nNew message:\n{{message}}',
  'episode-generation-prompt':
    'Write a third-person episode summarising the conversation segment below, resolving relative dates against ' +
    '{{date}}, and list its atomic facts. Return JSON: {"episode": "...", "facts": ["...", "..."]}.\n\nSegment:\n{{segment}}',
  'session-summary-prompt':
    'Summarise the conversation session below in the third person: who said what, with dates resolved against ' +
    '{{date}}.\n\nSession:\n{{session}}',
  'summary-consolidation-prompt':
    'Merge the session summaries below into one shorter digest that keeps what matters for the future.\n\n{{summaries}}',
  'sufficiency-check-prompt':
    'Do the retrieved memories contain enough information to answer the question? ' +
    'Return JSON: {"sufficient": true|false}.\n\nQuestion: {{question}}\n\nMemories:\n{{memories}}',
  'query-rewrite-prompt':
    'The memories were not sufficient. Write 2-3 extra search queries: the question rephrased, a hypothetical answer, ' +
    'and a temporal variant. Return JSON: {"queries": ["...", "..."]}.\n\nQuestion: {{question}}',
  'llm-judge-prompt':
    'Your task is to label an answer to a question as CORRECT or WRONG. You will be given a question, a gold ' +
    'answer and a generated answer. Be generous: if the generated answer touches on the same topic as the gold ' +
    'answer, or refers to the same date or time period in another format, it is CORRECT.\n\n' +
    'Question: {{question}}\nGold answer: {{gold}}\nGenerated answer: {{prediction}}\n\n' +
    'Return JSON: {"label": "CORRECT"} or {"label": "WRONG"}.',
};

export function fillPrompt(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (m, k: string) => values[k] ?? m);
}
