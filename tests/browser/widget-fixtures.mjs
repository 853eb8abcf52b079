// Shared by the widget tests: a folder holding only the built widget bundle
// (build/site/headlab/, exactly what an author copies) plus test pages, and
// small readers for numbers the widgets show inside their shadow roots.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root } from './helpers.mjs';

export const ARTICLE = 'articles/projections-matching-and-content.html';

/** What the transformer figures and the seed grid read (site/pages/data/): the shipped induction model and the max-digit seeds file. */
export const SHIPPED_DATA = ['induction-seed0.safetensors', 'induction-seed0.json', 'max-digit-seeds-0-9.json'];

/**
 * Copies build/site/headlab into a fresh temporary folder and writes `pages`
 * ({ 'name.html': '<body markup>' }) around it, each loading the bundle with one
 * script tag. `withoutWasm` drops the .wasm (to test the load-failure message);
 * `shippedData` (a folder inside it, '.' for its top) receives the SHIPPED_DATA files.
 */
export function bundleDir(pages, { withoutWasm = false, shippedData = null } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'headlab-embed-'));
  fs.cpSync(path.join(root, 'build/site/headlab'), path.join(dir, 'headlab'), { recursive: true });
  if (withoutWasm) fs.rmSync(path.join(dir, 'headlab/headlab_core.wasm'));
  if (shippedData !== null) {
    fs.mkdirSync(path.join(dir, shippedData), { recursive: true });
    for (const f of SHIPPED_DATA) fs.copyFileSync(path.join(root, 'site/pages/data', f), path.join(dir, shippedData, f));
  }
  fs.copyFileSync(path.join(root, 'site/assets/favicon.svg'), path.join(dir, 'favicon.svg'));
  for (const [name, { body, head = '' }] of Object.entries(pages)) {
    fs.writeFileSync(
      path.join(dir, name),
      `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${name}</title><link rel="icon" href="favicon.svg" type="image/svg+xml">${head}
<script type="module" src="headlab/headlab.js"></script></head>
<body>
${body}
</body></html>
`,
    );
  }
  return dir;
}

/** Waits until every headlab-* element on the page is defined (connected and upgraded). */
export async function elementsDefined(page) {
  await page.waitForFunction(() =>
    [...document.querySelectorAll('*')].every((e) => !e.localName.startsWith('headlab-') || customElements.get(e.localName)),
  );
}

/** Waits until `selector` (a headlab-* element) has rendered at least once. */
export async function rendered(page, selector) {
  // Rendered and live: a widget behind a prerendered snapshot renders first and replaces the
  // snapshot at a later frame (one replacement per frame across the page), so until its body is
  // shown the shadow root holds both the snapshot's nodes and the live ones. An alert counts too.
  await page.waitForFunction((s) => {
    const e = document.querySelector(s);
    const shown = (c) => [...(e?.shadowRoot?.children ?? [])].find((n) => n.classList.contains(c))?.hidden === false; // the live one comes first; the snapshot's own copies follow it until it is dropped
    return e?.renderCount > 0 && (shown('body') || shown('alert'));
  }, selector);
}

/**
 * Waits until the page's widgets are settled: no headlab-* element has an update scheduled (a
 * render at a frame, in a task or in its turn, a snapshot swap, a typed field's check:
 * `updatePending`) or work in its worker (`busy`), and that still holds after a frame has been
 * drawn and the tasks it queued (resize observers, layout) have run. A state, not a count of
 * frames: on a loaded machine a render asked in a task (a replaced model, a debounced field)
 * may come several frames later. Fails (Playwright's timeout) if the page never settles.
 */
export async function frames(page) {
  const idle = () => [...document.querySelectorAll('*')].every((e) => !e.updatePending && !e.busy);
  for (;;) {
    await page.waitForFunction(idle, null, { timeout: 120_000 });
    // A frame drawn and the tasks after it: what the frame's layout triggers (a resize observer asking for a render) is scheduled by then.
    const still = await page.evaluate(`new Promise((resolve) => requestAnimationFrame(() => setTimeout(() => resolve((${idle})()))))`);
    if (still) return;
  }
}

/**
 * Waits until no headlab-* element of `page` is busy (a worker analysis outstanding, or a figure
 * yet to draw a replaced model: those redraw one per task), then two frames.
 */
export async function drawn(page) {
  await page.waitForFunction(() => [...document.querySelectorAll('*')].every((e) => !e.busy));
  await frames(page);
}

/**
 * Waits until the model figure `selector` of `page` shows its model's analysis: a model read
 * (currentModel), rendered, no work in its worker and its figureData present; then frames().
 */
export async function figureReady(page, selector) {
  await page.waitForFunction(
    (s) => {
      const w = document.querySelector(s);
      return w && w.currentModel && w.renderCount > 0 && !w.busy && w.figureData !== null;
    },
    selector,
    { timeout: 120_000 },
  );
  await frames(page);
}

/**
 * At 360 and 1280 px wide (900 high), light and dark: sets `page` to each look, waits until its
 * widgets are settled (frames()) and calls `look(width, scheme)`, e.g. to take a screenshot.
 */
export async function atEachLook(page, look) {
  for (const [width, scheme] of [
    [360, 'light'],
    [360, 'dark'],
    [1280, 'light'],
    [1280, 'dark'],
  ]) {
    await page.setViewportSize({ width, height: 900 });
    await page.emulateMedia({ colorScheme: scheme });
    await frames(page);
    await look(width, scheme);
  }
}

/** A new page of `session` at the first article (colour scheme `colorScheme`), `tag` rendered and its `change` events recorded. */
export async function openArticle(session, tag, colorScheme = 'light') {
  const page = await session.newPage({ colorScheme });
  await page.goto(`${session.url}${ARTICLE}`);
  await rendered(page, tag);
  await recordChanges(page);
  return page;
}

/** Records every `change` event reaching document (detail kept) in window.__changes. */
export async function recordChanges(page) {
  await page.evaluate(() => {
    window.__changes = [];
    document.addEventListener('change', (e) => {
      if (e.detail) window.__changes.push(e.detail);
    });
  });
}

export async function changes(page) {
  return page.evaluate(() => window.__changes);
}

/** Asserts |actual[i] − expected[i]| ≤ tol for all i, with a message naming `what`. */
export function close(assert, actual, expected, tol, what) {
  assert.equal(actual.length, expected.length, `${what}: length ${actual.length} ≠ ${expected.length}`);
  actual.forEach((a, i) => {
    assert.ok(Math.abs(a - expected[i]) <= tol, `${what}[${i}] = ${a}, expected ${expected[i]} within ${tol}`);
  });
}

/** The least size of a drawn text, in CSS px: 11 px at every width (docs/conventions.md, layout.test.mjs). */
export const LEAST_TEXT_PX = 11;

/**
 * Screenshots of the first `tag` on page `p` (test-results/screenshots/<name>-<scheme>-<width>.png) at
 * 360, 700 and 1280 px in light and dark, each once the page is idle; at each, the page does not
 * scroll sideways and every text of the figure's SVG (`svgSelector` in its shadow root) is drawn at
 * LEAST_TEXT_PX or more. `shoot(locator, name)` saves one (helpers.mjs screenshot).
 */
export async function figureScreenshots(p, tag, name, svgSelector, shoot) {
  for (const scheme of ['light', 'dark']) {
    for (const width of [360, 700, 1280]) {
      await p.emulateMedia({ colorScheme: scheme });
      await p.setViewportSize({ width, height: 900 });
      await frames(p);
      await shoot(p.locator(tag).first(), `${name}-${scheme}-${width}`);
      const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      if (overflow > 0) throw new Error(`${scheme} ${width}: the page scrolls sideways by ${overflow} px`);
      const smallest = await p.evaluate(
        ({ t, s }) => {
          const svg = document.querySelector(t).shadowRoot.querySelector(s);
          const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
          return Math.min(...[...svg.querySelectorAll('text')].map((x) => parseFloat(getComputedStyle(x).fontSize) * scale));
        },
        { t: tag, s: svgSelector },
      );
      if (!(smallest >= LEAST_TEXT_PX)) throw new Error(`${scheme} ${width}: a label drawn at ${smallest.toFixed(1)} px`);
    }
  }
}

/**
 * Sets `attrs` on the first `tag` of page `p` and waits until its shadow root's text matches
 * `message` (the widget naming the bad attribute); its `state` is then null (getters never throw).
 * Returns that state for the caller's assertion.
 */
export async function namesBadAttributes(p, tag, attrs, message) {
  await p.evaluate(
    ({ t, attrs }) => {
      const w = document.querySelector(t);
      for (const [k, v] of Object.entries(attrs)) w.setAttribute(k, v);
    },
    { t: tag, attrs },
  );
  await p.waitForFunction(({ t, message }) => new RegExp(message).test(document.querySelector(t).shadowRoot.textContent), {
    t: tag,
    message: message.source,
  });
  return p.evaluate((t) => document.querySelector(t).state, tag);
}
