/** Character paging of long renderings (the paper's agents read 128k characters per call). */

export const DEFAULT_PAGE_CHARS = 128_000;

export interface Page {
  text: string;
  /** 0-based page number. */
  page: number;
  pages: number;
  totalChars: number;
}

export function pageOf(text: string, page = 0, pageChars = DEFAULT_PAGE_CHARS): Page {
  const pages = Math.max(1, Math.ceil(text.length / pageChars));
  const p = Math.min(Math.max(0, page), pages - 1);
  return { text: text.slice(p * pageChars, (p + 1) * pageChars), page: p, pages, totalChars: text.length };
}
