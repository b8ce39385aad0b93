/** Character paging of long renderings (the paper's agents read 128k characters per call). */

/** Characters per page unless a caller chooses (the paper's 128k). */
export const DEFAULT_PAGE_CHARS = 128_000;

/** One page of a rendering, with the page count and the whole text's length. */
export interface Page {
  text: string;
  /** 0-based page number. */
  page: number;
  pages: number;
  totalChars: number;
}

/** Page `page` of a text (clamped to the existing pages; an empty text is one empty page). */
export function pageOf(text: string, page = 0, pageChars = DEFAULT_PAGE_CHARS): Page {
  const pages = Math.max(1, Math.ceil(text.length / pageChars));
  const p = Math.min(Math.max(0, page), pages - 1);
  return { text: text.slice(p * pageChars, (p + 1) * pageChars), page: p, pages, totalChars: text.length };
}
