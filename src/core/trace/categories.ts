/**
 * What a variable's `category` says, the one reading of it: a category is one word or several
 * joined by `&` (`message & query` is the question: a message that is also the query). Every
 * rule about messages, queries, prompts and "too general to say what kind of unit" reads the
 * parts here, so `message & query` counts the same everywhere.
 */

/** The parts of a category: `message & query` → `['message', 'query']`. */
export function categoryParts(category: string): string[] {
  return category.split(/\s*&\s*/);
}

/** Whether the category has this part (`message & query` has `message` and `query`). */
export function hasCategory(category: string, part: string): boolean {
  return category === part || categoryParts(category).includes(part);
}

/** A message of any kind, the question (`message & query`) included. */
export function isMessageCategory(category: string): boolean {
  return hasCategory(category, 'message');
}

/** The question asked (`message & query`, or `query`). */
export function isQueryCategory(category: string): boolean {
  return hasCategory(category, 'query');
}

/** A message of the conversation: a message that is not the question (what `stats` counts, search's `messages` scope, the lanes' message band). */
export function isConversationMessage(category: string): boolean {
  return isMessageCategory(category) && !isQueryCategory(category);
}

/** A prompt template (alone or in an `a & b` list): context, never memory. */
export function isPromptCategory(category: string): boolean {
  return hasCategory(category, 'prompt');
}

/** Parts too general to say two variables are the same kind of memory unit. */
const GENERIC_PARTS = new Set(['variable', 'sentinel', 'prompt', 'message', 'query']);

/** Whether every part of the category is generic (`variable`, `message & query`, …): it names no kind of memory unit. */
export function isGenericCategory(category: string): boolean {
  return categoryParts(category).every((p) => GENERIC_PARTS.has(p));
}
