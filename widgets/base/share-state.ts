// The URL hash as shareable state: "<key>.<name>=<value>" entries joined by "&", where
// <key> is an element's id (docs/embedding.md, "Shareable state"). Reading is bounded
// (MAX_HASH_LENGTH); writing is debounced (HASH_WRITE_DELAY_MS). SharedStateLink keeps one
// element's state there.
import { formatCount } from '../chart/format.js';

/** How long after the last change the URL hash is written (a sweep of a control writes once). */
export const HASH_WRITE_DELAY_MS = 200;
/** A refused hash write is tried once more this much later. */
export const HASH_RETRY_MS = 1000;
/**
 * Longest URL hash read for shared state, in characters after the '#' (as the page's URL holds
 * them, percent-encoded); a widget's state is a few hundred characters.
 */
export const MAX_HASH_LENGTH = 8192;

/**
 * Attributes that name a file or a place to fetch from. They are never read from the URL hash
 * (nor written to it), whatever an element lists in its shared attributes: what a page loads is
 * chosen by its author, so a crafted link cannot make a reader's page fetch files from another
 * origin (shown as the author's model) or from a server that stalls.
 */
export const LOCATION_ATTRIBUTES: ReadonlySet<string> = new Set(['src', 'config', 'data', 'href', 'url']);

/** Room left below a drawing a link scrolls to the bottom of the screen (CSS px). */
const REVEAL_MARGIN_PX = 16;

/** The element's first drawing on screen (an SVG figure or a canvas in its shadow root), or null. */
function firstDrawing(e: Element): Element | null {
  for (const d of e.shadowRoot?.querySelectorAll('svg:not(svg svg), canvas') ?? []) if (d.getBoundingClientRect().height > 0) return d;
  return null;
}

/** The hash's "&"-separated entries, still encoded. */
export function hashParts(): string[] {
  return location.hash.replace(/^#/, '').split('&').filter(Boolean);
}

/** An entry's key or value decoded ("" when it is not valid percent-encoding). */
export function decodePart(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return '';
  }
}

/** The values the hash holds for the element keyed `key`, or null when it names none of them. */
export function hashEntries(key: string): Record<string, string> | null {
  const prefix = `${key}.`;
  const values: Record<string, string> = {};
  let found = false;
  for (const part of hashParts()) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = decodePart(part.slice(0, eq));
    if (!name.startsWith(prefix)) continue;
    values[name.slice(prefix.length)] = decodePart(part.slice(eq + 1));
    found = true;
  }
  return found ? values : null;
}

/** The hash with the entries of `key` replaced by `state`, every other entry kept. */
export function hashWith(key: string, state: Record<string, string>): string {
  const prefix = `${key}.`;
  const others = hashParts().filter((p) => !decodePart(p.split('=')[0]).startsWith(prefix));
  const mine = Object.entries(state).map(([k, v]) => `${encodeURIComponent(prefix + k)}=${encodeURIComponent(v)}`);
  return [...others, ...mine].join('&');
}

/** The key of the first element the hash names (the one a link points at), or null. */
export function firstKeyInHash(): string | null {
  for (const part of hashParts()) {
    const name = decodePart(part.split('=')[0]);
    const dot = name.indexOf('.');
    if (dot >= 0) return name.slice(0, dot);
  }
  return null;
}

/** The element a SharedStateLink keeps in the hash: its key and its state (attributes, docs/embedding.md). */
export interface SharedStateElement extends HTMLElement {
  readonly shareKey: string;
  sharedState: Record<string, string>;
}

/**
 * One element's state in the URL hash (with the `share-state` attribute): written debounced on
 * every change, read on connect and on `hashchange`, and a link that names the element scrolls
 * it into view. `showError` shows a message in the element; `built` says whether it has built
 * its controls (a link followed before that scrolls after the first render instead).
 */
export class SharedStateLink {
  private timer = 0;
  private retried = false;
  /** Why the URL hash was not read (the element shows it instead of the figure until the hash changes). */
  problem: string | null = null;
  /** Scroll to the element after its next render (its state was named by the URL hash on load). */
  scrollOnRender = false;

  constructor(
    private readonly element: SharedStateElement,
    private readonly host: { showError(message: string): void; built(): boolean },
  ) {}

  /**
   * Schedules writing the shareable state into the URL hash, HASH_WRITE_DELAY_MS after the
   * last change: a slider swept through a hundred values writes once, not a hundred times
   * (browsers throttle history.replaceState — Chromium after a few hundred calls, Safari
   * throws after 100 calls in 30 s). The write always carries the latest state, and a
   * pending write is flushed when the element is removed or the page is hidden.
   */
  schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.flush(), HASH_WRITE_DELAY_MS);
  }

  /** Writes a pending state now (the element leaves the page, or the page is hidden). */
  flush(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = 0;
    this.write();
  }

  /** Writes the shareable state into the URL hash as "<key>.<name>=<value>" entries, keeping every other entry. */
  private write(): void {
    const hash = hashWith(this.element.shareKey, this.element.sharedState);
    try {
      history.replaceState(history.state, '', `${location.pathname}${location.search}${hash ? `#${hash}` : ''}`);
    } catch {
      // Refused (rate limit, sandboxed frame): the state stays on the page; try once more later with the then-current state.
      if (!this.retried) {
        this.retried = true;
        this.timer = window.setTimeout(() => {
          this.retried = false;
          this.flush();
        }, HASH_RETRY_MS);
      }
    }
  }

  /**
   * Applies this element's entries of the URL hash (if any). Only its shared attributes are
   * touched, and each value goes through the attribute's own validation, so a tampered
   * link shows the same message inside the widget as a bad attribute would.
   */
  read(scroll: 'now' | 'after-render' | 'no' = 'no'): void {
    this.problem = null;
    const key = this.element.shareKey;
    const hash = location.hash.replace(/^#/, '');
    if (hash.length > MAX_HASH_LENGTH) {
      // Not read; said in the widget until the hash changes (the render would otherwise clear the message).
      if (hash.includes(encodeURIComponent(`${key}.`)) || hash.includes(`${key}.`)) {
        this.problem =
          `The link's state is ${formatCount(hash.length)} characters long; ` +
          `links longer than ${formatCount(MAX_HASH_LENGTH)} characters are not read.`;
        this.host.showError(this.problem);
      }
      return;
    }
    const values = hashEntries(key);
    if (!values) return;
    for (const name of LOCATION_ATTRIBUTES) delete values[name];
    this.element.sharedState = values;
    if (scroll !== 'no' && firstKeyInHash() === key) {
      if (scroll === 'now' && this.host.built()) this.reveal(true);
      else this.scrollOnRender = true;
    }
  }

  /**
   * Scrolls the element into view (centred unless it is taller than the viewport) and rings it
   * for a moment, for a prose link or a shared URL that set its state; a followed link also
   * moves focus to it, so the next Tab continues inside the figure.
   */
  reveal(focus: boolean): void {
    const e = this.element;
    const reduce = matchMedia('(prefers-reduced-motion: reduce)').matches;
    const behavior = reduce ? 'auto' : 'smooth';
    const box = e.getBoundingClientRect();
    const tall = box.height > innerHeight * 0.9;
    // A tall figure (a phone) shows its top, unless its first drawing, where a link's effect shows,
    // would then lie below the fold: then that drawing is centred (room for the live figure
    // replacing its snapshot a frame later, whose controls may be a few pixels taller).
    const chart = tall ? firstDrawing(e) : null;
    const drawn = chart?.getBoundingClientRect();
    if (chart && drawn && drawn.bottom - box.top > innerHeight - REVEAL_MARGIN_PX) {
      const fits = drawn.height <= innerHeight - 2 * REVEAL_MARGIN_PX;
      chart.scrollIntoView({ block: fits ? 'center' : 'start', behavior });
    } else e.scrollIntoView({ block: tall ? 'start' : 'center', behavior });
    e.setAttribute('data-hash-target', '');
    window.setTimeout(() => e.removeAttribute('data-hash-target'), 2500);
    if (focus) {
      if (!e.hasAttribute('tabindex')) e.setAttribute('tabindex', '-1');
      e.focus({ preventScroll: true });
    }
  }
}
