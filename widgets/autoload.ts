// headlab/autoload (`<script type="module" src="…/headlab/autoload.js">`): registers just the
// headlab-* elements the page uses. It looks for undefined headlab-* tags in the document, then
// watches it (a MutationObserver on the whole tree) for tags added later — by a framework, a
// client-side route change, a script — and imports each tag's own entry point once
// (headlab/<name>, the same module `import 'headlab/<name>'` loads), so a post with one widget
// downloads that widget's code and the WASM module it computes with, not every element's.
// Safe to import in Node or during server rendering: without a document it does nothing.
// Elements inside a shadow root the page builds itself are found with `discover(root)`.

/** Each element's entry point. Dynamic imports of the entries: the bundler keeps one file per element. */
const LOADERS: Record<string, () => Promise<unknown>> = {
  'headlab-angle-dot': () => import('./headlab-angle-dot-define.js'),
  'headlab-attention-bars': () => import('./headlab-attention-bars-define.js'),
  'headlab-attention-patch': () => import('./headlab-attention-patch-define.js'),
  'headlab-attribution-patching': () => import('./headlab-attribution-patching-define.js'),
  'headlab-basis-rotation': () => import('./headlab-basis-rotation-define.js'),
  'headlab-circuit-faithfulness': () => import('./headlab-circuit-faithfulness-define.js'),
  'headlab-choice-quiz': () => import('./headlab-choice-quiz-define.js'),
  'headlab-feature-recovery': () => import('./headlab-feature-recovery-define.js'),
  'headlab-head-ablation': () => import('./headlab-head-ablation-define.js'),
  'headlab-head-contributions': () => import('./headlab-head-contributions-define.js'),
  'headlab-head-svd': () => import('./headlab-head-svd-define.js'),
  'headlab-interventions': () => import('./headlab-interventions-define.js'),
  'headlab-logit-lens': () => import('./headlab-logit-lens-define.js'),
  'headlab-max-digit-mechanism': () => import('./headlab-max-digit-mechanism-define.js'),
  'headlab-max-digit-model': () => import('./headlab-max-digit-model-define.js'),
  'headlab-path-patching': () => import('./headlab-path-patching-define.js'),
  'headlab-projection-ablation': () => import('./headlab-projection-ablation-define.js'),
  'headlab-qk-attribution': () => import('./headlab-qk-attribution-define.js'),
  'headlab-query-key-canvas': () => import('./headlab-query-key-canvas-define.js'),
  'headlab-score-ramps': () => import('./headlab-score-ramps-define.js'),
  'headlab-seed-grid': () => import('./headlab-seed-grid-define.js'),
  'headlab-subspace-accuracy': () => import('./headlab-subspace-accuracy-define.js'),
  'headlab-training-replay': () => import('./headlab-training-replay-define.js'),
  'headlab-transformer-ablation': () => import('./headlab-transformer-ablation-define.js'),
  'headlab-transformer-attention': () => import('./headlab-transformer-attention-define.js'),
  'headlab-transformer-attribution': () => import('./headlab-transformer-attribution-define.js'),
  'headlab-transformer-circuits': () => import('./headlab-transformer-circuits-define.js'),
  'headlab-transformer-composition': () => import('./headlab-transformer-composition-define.js'),
  'headlab-transformer-model': () => import('./headlab-transformer-model-define.js'),
  'headlab-transformer-patching': () => import('./headlab-transformer-patching-define.js'),
  'headlab-transformer-training': () => import('./headlab-transformer-training-define.js'),
  'headlab-value': () => import('./headlab-value-define.js'),
  'headlab-value-swap': () => import('./headlab-value-swap-define.js'),
};

/** The tags whose entry point has been asked for (each once per page). */
const requested = new Set<string>();

function load(tag: string): void {
  if (requested.has(tag) || customElements.get(tag)) return;
  requested.add(tag);
  const loader = LOADERS[tag];
  if (!loader) {
    // A misspelt tag stays an empty box: say so where an author looks.
    console.warn(`headlab/autoload: <${tag}> is not a headlab element (known: ${Object.keys(LOADERS).join(', ')})`);
    return;
  }
  loader().catch((err: unknown) => {
    requested.delete(tag); // a later insertion of the tag tries again
    console.error(`headlab/autoload: could not load <${tag}>: ${err instanceof Error ? err.message : String(err)}`);
  });
}

/**
 * Loads the entry point of every undefined headlab-* element in `root` (itself included, if an
 * element): for elements in a shadow root the page builds itself, which the document's observer
 * does not see. Does nothing outside a browser.
 */
export function discover(root: Document | DocumentFragment | Element): void {
  if (typeof customElements === 'undefined') return;
  if (root instanceof Element && root.localName.startsWith('headlab-')) load(root.localName);
  for (const e of root.querySelectorAll(':not(:defined)')) if (e.localName.startsWith('headlab-')) load(e.localName);
}

if (typeof document !== 'undefined' && typeof MutationObserver !== 'undefined') {
  discover(document);
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) if (n.nodeType === Node.ELEMENT_NODE) discover(n as Element);
  }).observe(document.documentElement, { childList: true, subtree: true });
}
