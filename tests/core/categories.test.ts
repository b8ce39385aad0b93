/** The one reading of a variable's category (core/trace/categories.ts), as the smartcomment files use them. */
import { describe, expect, it } from 'vitest';
import {
  isConversationMessage,
  isGenericCategory,
  isMessageCategory,
  isPromptCategory,
  isQueryCategory,
} from '../../src/core/trace/index.ts';

describe('categories', () => {
  it('the question (message & query) is a message and the query, but no conversation message', () => {
    expect(isMessageCategory('message & query')).toBe(true);
    expect(isQueryCategory('message & query')).toBe(true);
    expect(isConversationMessage('message & query')).toBe(false);
    // Written the other way round or without spaces, the same.
    expect(isQueryCategory('query&message')).toBe(true);
    expect(isConversationMessage('query&message')).toBe(false);
  });

  it('a conversation message is one; other kinds are not messages', () => {
    expect(isConversationMessage('message')).toBe(true);
    for (const c of ['memory_entry', 'buffer', 'answer', 'judge', 'prompt', 'messages', 'search query'])
      expect(isMessageCategory(c), c).toBe(false);
    expect(isQueryCategory('search query')).toBe(false);
  });

  it('a prompt alone or in a list', () => {
    expect(isPromptCategory('prompt')).toBe(true);
    expect(isPromptCategory('prompt & template')).toBe(true);
    expect(isPromptCategory('prompts')).toBe(false);
  });

  it('generic: every part names no kind of memory unit', () => {
    for (const c of ['variable', 'sentinel', 'prompt', 'message', 'query', 'message & query'])
      expect(isGenericCategory(c), c).toBe(true);
    for (const c of ['memory_entry', 'facts', 'message & memory_entry', 'retrieved_chunks'])
      expect(isGenericCategory(c), c).toBe(false);
  });
});
