// Linked highlighting across the max-digit figures of a page: hovering or focusing anything
// that names a head, a digit or a prompt position (data-head, data-digit, data-position on an
// element or SVG node) lights the same head, digit or position in every max-digit widget and
// dims the rest. One page-wide channel; no browser global is touched at import time.
export interface Highlight {
  head?: number;
  digit?: number;
  position?: number;
}

const channel = { listeners: new Set<(h: Highlight | null) => void>(), current: null as Highlight | null };

export function setHighlight(h: Highlight | null): void {
  const same = JSON.stringify(h) === JSON.stringify(channel.current);
  if (same) return;
  channel.current = h;
  for (const l of channel.listeners) l(h);
}

export function currentHighlight(): Highlight | null {
  return channel.current;
}

/** Subscribes; returns the unsubscribe function. */
export function onHighlight(listener: (h: Highlight | null) => void): () => void {
  channel.listeners.add(listener);
  return () => channel.listeners.delete(listener);
}

/** The highlight an element names through its nearest data-head / data-digit / data-position. */
export function highlightOf(path: EventTarget[]): Highlight | null {
  for (const t of path) {
    if (!(t instanceof Element)) continue;
    const h: Highlight = {};
    const head = t.getAttribute('data-head');
    const digit = t.getAttribute('data-digit');
    const position = t.getAttribute('data-position');
    if (head !== null && head !== '') h.head = Number(head);
    if (digit !== null && digit !== '') h.digit = Number(digit);
    if (position !== null && position !== '' && Number(position) >= 0) h.position = Number(position);
    if (h.head !== undefined || h.digit !== undefined || h.position !== undefined) return h;
    if (t.classList.contains('content')) return null;
  }
  return null;
}

/**
 * Marks every [data-head], [data-digit], [data-position] node under `root`: class "lit" when it
 * matches the highlight, "dim" when it names the same kind of thing but another one.
 */
export function applyHighlight(root: ParentNode, h: Highlight | null): void {
  for (const node of root.querySelectorAll('[data-head], [data-digit], [data-position]')) {
    let match: boolean | null = null;
    if (h) {
      for (const [key, attr] of [
        ['head', 'data-head'],
        ['digit', 'data-digit'],
        ['position', 'data-position'],
      ] as const) {
        const want = h[key];
        const has = node.getAttribute(attr);
        if (want === undefined || has === null || has === '') continue;
        const ok = Number(has) === want;
        match = match === null ? ok : match && ok;
      }
    }
    node.classList.toggle('lit', match === true);
    node.classList.toggle('dim', match === false);
  }
}
