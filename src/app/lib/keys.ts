/**
 * Keyboard navigation inside a list: ↓/j and ↑/k move focus between the list's
 * `[data-nav]` elements (links or buttons); Enter follows the focused link natively.
 */
export function listNav(node: HTMLElement) {
  const onKey = (e: KeyboardEvent) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const t = e.target as HTMLElement;
    if (t.closest('input, textarea, select')) return;
    const down = e.key === 'ArrowDown' || e.key === 'j';
    const up = e.key === 'ArrowUp' || e.key === 'k';
    if (!down && !up) return;
    const items = Array.from(node.querySelectorAll<HTMLElement>('[data-nav]'));
    if (items.length === 0) return;
    const i = items.indexOf(document.activeElement as HTMLElement);
    const next = i < 0 ? 0 : Math.max(0, Math.min(items.length - 1, i + (down ? 1 : -1)));
    items[next].focus();
    items[next].scrollIntoView({ block: 'nearest' });
    e.preventDefault();
  };
  node.addEventListener('keydown', onKey);
  return { destroy: () => node.removeEventListener('keydown', onKey) };
}

/** True when a key event belongs to a text field (global shortcuts stay out of its way). */
export function inTextField(e: KeyboardEvent): boolean {
  const t = e.target as HTMLElement | null;
  return !!t?.closest?.('input, textarea, select, [contenteditable="true"]');
}
