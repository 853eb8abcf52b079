// When the max-digit widgets load headlab_max_digit.wasm and their weights (docs/embedding.md,
// "When the max-digit widgets load").
//
// A page built by the site shows each widget's prerendered snapshot (site/snapshots.mjs): the
// default state, drawn from the same weights, at its final size. Until the reader interacts,
// that picture is all the live widget would show, so the module (≈ 80 KB gzip), its loader and
// the weights (≈ 165 KB gzip) wait for the reader's first interaction with the page:
//   - a pointer press or a key press anywhere (the events that start an interaction in the
//     Event Timing API's sense: scrolling is reading, not interacting);
//   - a pointer entering, a touch on, or focus moving into any max-digit element (a reader
//     reaching for a figure: the hover gives the download a head start before the click);
//   - a URL hash naming widget state (a shared link, at load or on hashchange);
//   - an explicit load() on an element, or loading="eager".
// Why not "when a widget scrolls near and the page is idle": the model panel and the first
// figure of the article sit in the first screen, so that rule would fetch everything on load
// for every reader; and the one weights file serves every widget, so there is nothing to gain
// from loading them one by one as they come into view.
//
// A widget without a snapshot (an author's page that was not prerendered) has nothing to show
// in the meantime and loads at once, as before.

let wanted: Promise<void> | null = null;
let release: (() => void) | null = null;
let fired = false;

/** A share-state hash names "<id>.<key>=<value>" pairs (widgets/base/headlab-element.ts). */
function hashNamesState(): boolean {
  return /(^#|&)[^=&.]+\.[^=&]+=/.test(location.hash);
}

/** Starts loading every deferred max-digit widget on the page now. */
export function loadMaxDigitNow(): void {
  fired = true;
  release?.();
}

/** Whether the reader has interacted (or something else asked for the live widgets). */
export function maxDigitLoadRequested(): boolean {
  return fired;
}

/** Resolves on the reader's first interaction with the page (see above); the listeners are page-wide and installed once. */
export function firstInteraction(): Promise<void> {
  if (wanted) return wanted;
  wanted = new Promise<void>((resolve) => {
    const stop = new AbortController();
    release = () => {
      fired = true;
      stop.abort();
      release = null;
      resolve();
    };
    if (fired || hashNamesState()) {
      release();
      return;
    }
    const options = { capture: true, passive: true, signal: stop.signal };
    for (const type of ['pointerdown', 'keydown', 'hashchange'] as const) window.addEventListener(type, () => release?.(), options);
  });
  return wanted;
}

/** Releases the page's deferred widgets when a pointer or focus reaches `host` (a max-digit element); returns the clean-up. */
export function watchReach(host: HTMLElement): () => void {
  const stop = new AbortController();
  const go = () => {
    stop.abort();
    loadMaxDigitNow();
  };
  for (const type of ['pointerover', 'touchstart', 'focusin'] as const)
    host.addEventListener(type, go, { passive: true, signal: stop.signal });
  return () => stop.abort();
}
