// Layout of every built page at 360 and 1280 px, light and dark (360 px as a touch phone; the
// widths the widgets are designed for), in the rendered page, shadow roots included:
//   - no horizontal page overflow;
//   - nothing clipped: an element that sticks out of an ancestor that clips it (overflow other
//     than visible) is allowed only inside a labelled scroll region (a box that scrolls, with
//     an accessible name and in the Tab order, so every reader can reach what is off to the side);
//   - no rendered text under MIN_TEXT_PX, SVG text included: its font size times the scale at
//     which its SVG is drawn (a viewBox shrunk to a phone shrinks its text);
//   - on the touch phone, every widget control at least MIN_TARGET_PX in both directions (a
//     radio button or checkbox counts with its label, which is what a finger hits; cells of a
//     heatmap grid, which are read rather than pressed, are not controls here).
// Full-page screenshots of each page at 360 and 1280 px, light and dark, are kept in
// test-results/screenshots/layout-*.png.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { artifactsDir, root, startSession } from './helpers.mjs';

/** Smallest legible text: 11 CSS px (the brief's floor for chart text at 360 px). */
const MIN_TEXT_PX = 11;
/** Smallest touch target: 44 CSS px (WCAG 2.5.5, Apple HIG). */
const MIN_TARGET_PX = 44;
/** Sub-pixel slack for layout rounding when comparing boxes. */
const EDGE_SLACK_PX = 1;

/** Widths per colour scheme. */
const WIDTHS = { light: [360, 1280], dark: [360, 1280] };
const SCREENSHOT_WIDTHS = [360, 1280];

const siteDir = path.join(root, 'build/site');
const PAGES = (function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return d.name === 'headlab' || d.name === 'assets' || d.name === 'data' ? [] : walk(p);
    return d.name.endsWith('.html') ? [path.relative(siteDir, p).split(path.sep).join('/')] : [];
  });
})(siteDir).sort();

let session;
before(async () => { session = await startSession({ csp: true }); });
after(async () => { await session?.close(); });

async function open(name, width, colorScheme) {
  const phone = width <= 400;
  const page = await session.newPage({
    colorScheme, viewport: { width, height: 900 }, deviceScaleFactor: 1,
    ...(phone ? { isMobile: true, hasTouch: true } : {}),
  });
  await page.goto(`${session.url}${name}`);
  // The max-digit figures go live on the reader's first interaction (here a pointer onto the
  // model panel) and the lazily loaded model with load(); each swaps its snapshot in a frame.
  const panel = page.locator('headlab-max-digit-model').first();
  if (await panel.count()) await panel.hover();
  await page.waitForFunction(() => {
    for (const m of document.querySelectorAll('headlab-max-digit-model')) m.load?.();
    return [...document.querySelectorAll('*')]
      .filter((e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value')
      .every((e) => (e.renderCount > 0 && !e.shadowRoot?.querySelector('link[href*="headlab/snapshot/"]')) || !e.shadowRoot?.querySelector('.alert')?.hidden);
  });
  await page.evaluate(async () => {
    await document.fonts.ready;
    // Two frames: the widgets' first renders and the site script's scroll-box marking settle.
    for (let i = 0; i < 3; i++) await new Promise((r) => requestAnimationFrame(() => r()));
  });
  return page;
}

/** Runs in the page: every layout problem, as readable strings. */
function measure({ minText, minTarget, slack, phone }) {
  const problems = { overflow: [], clipped: [], text: [], targets: [] };
  const all = [];
  (function collect(node) {
    for (const e of node.querySelectorAll('*')) {
      all.push(e);
      if (e.shadowRoot) collect(e.shadowRoot);
    }
  })(document);
  // Parent in the flat tree: a slotted element's slot, a shadow root's host.
  const parentOf = (e) => e.assignedSlot ?? e.parentElement ?? e.parentNode?.host ?? null;
  const hostOf = (e) => {
    const r = e.getRootNode();
    return r instanceof ShadowRoot ? r.host : null;
  };
  const describe = (e) => {
    const host = hostOf(e);
    const own = `${e.localName}${e.id ? `#${e.id}` : ''}${typeof e.className === 'string' && e.className ? `.${e.className.trim().split(/\s+/).join('.')}` : ''}`;
    const text = (e.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
    return `${host ? `${host.localName}${host.id ? `#${host.id}` : ''} › ` : ''}${own}${text ? ` "${text}"` : ''}`;
  };
  // Visually hidden on purpose: sr-only boxes (clip), KaTeX's MathML copy, closed menus.
  const hiddenCache = new Map();
  const visuallyHidden = (e) => {
    if (!e) return false;
    if (hiddenCache.has(e)) return hiddenCache.get(e);
    let result;
    const cs = getComputedStyle(e);
    if (cs.display === 'none' || cs.visibility === 'hidden' || (cs.clip && cs.clip !== 'auto') || cs.clipPath !== 'none' || cs.contentVisibility === 'hidden') result = true;
    else if (e.localName === 'title' || e.localName === 'desc' || e.localName === 'style' || e.localName === 'script') result = true;
    else if (typeof e.checkVisibility === 'function' && !(e instanceof SVGElement) && !e.checkVisibility({ visibilityProperty: true })) result = true;
    else result = visuallyHidden(parentOf(e));
    hiddenCache.set(e, result);
    return result;
  };
  const clips = (cs) => cs.overflowX !== 'visible';
  const scrolls = (cs) => cs.overflowX === 'auto' || cs.overflowX === 'scroll';
  const labelledRegion = (e) => (e.hasAttribute('aria-label') || e.hasAttribute('aria-labelledby')) && e.tabIndex >= 0;

  // 1. Horizontal page overflow.
  const scrollWidth = document.scrollingElement.scrollWidth;
  if (scrollWidth > innerWidth) problems.overflow.push(`page is ${scrollWidth} px wide in a ${innerWidth} px window`);

  for (const e of all) {
    if (visuallyHidden(e)) continue;
    const r = e.getBoundingClientRect();
    if (r.width <= 1 && r.height <= 1) continue;
    // 2. Clipped: sticks out sideways of the nearest ancestor that clips.
    let a = parentOf(e);
    while (a && a !== document.documentElement && a !== document.body && !clips(getComputedStyle(a))) a = parentOf(a);
    // KaTeX draws stretchy delimiters and roots as long paths cut to size by their SVG on purpose.
    const katexCut = a?.localName === 'svg' && a.closest('.katex');
    if (a && a !== document.documentElement && a !== document.body && !katexCut) {
      const ar = a.getBoundingClientRect();
      if (r.right > ar.right + slack || r.left < ar.left - slack) {
        const ok = scrolls(getComputedStyle(a)) && labelledRegion(a);
        if (!ok) problems.clipped.push(`${describe(e)} sticks out of ${describe(a).slice(0, 60)} (${Math.round(r.left - ar.left)}…${Math.round(r.right - ar.left)} of ${Math.round(ar.width)} px)${scrolls(getComputedStyle(a)) ? ': the scroll box has no name or is not in the Tab order' : ''}`);
      }
    }
    // 4. Touch targets on the phone (widget controls and the export menu).
    // Table cells of a roving-tabindex grid (a heatmap) are read, not pressed, and are not counted.
    if (phone && hostOf(e) && e.matches('button, select, summary, input:not([type="hidden"]), [role="button"], [tabindex="0"]:not([role="region"], td, th)') && !e.disabled) {
      let box = r;
      if (e.matches('input[type="radio"], input[type="checkbox"]')) box = (e.closest('label') ?? e).getBoundingClientRect();
      if (box.height < minTarget - 0.5 || box.width < minTarget - 0.5) problems.targets.push(`${describe(e)} is ${Math.round(box.width)} × ${Math.round(box.height)} px`);
    }
  }

  // 3. Rendered text size, text node by text node.
  for (const e of all) {
    if (e.localName === 'svg') continue;
    // Zero-width spaces are KaTeX's struts, not text anyone reads.
    const own = [...e.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.replace(/[\s\u200b]/g, '') !== '');
    if (!own || visuallyHidden(e)) continue;
    const r = e.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const cs = getComputedStyle(e);
    let px = parseFloat(cs.fontSize);
    if (e instanceof SVGElement) {
      // SVG text is drawn at its font size times the scale of its coordinate system.
      const m = e.getScreenCTM();
      if (m) px *= Math.hypot(m.a, m.b);
    }
    if (px < minText - 0.05) problems.text.push(`${describe(e)} at ${px.toFixed(1)} px`);
  }
  return problems;
}

for (const colorScheme of ['light', 'dark']) {
  test(`every page at ${WIDTHS[colorScheme].join(', ')} px (${colorScheme}): no page overflow, nothing clipped outside a labelled scroll region, text ≥ ${MIN_TEXT_PX} px, touch targets ≥ ${MIN_TARGET_PX} px`, async () => {
    const failures = [];
    for (const name of PAGES) {
      for (const width of WIDTHS[colorScheme]) {
        const page = await open(name, width, colorScheme);
        const p = await page.evaluate(measure, { minText: MIN_TEXT_PX, minTarget: MIN_TARGET_PX, slack: EDGE_SLACK_PX, phone: width <= 400 });
        for (const [kind, list] of Object.entries(p)) {
          // Repeats of one kind of element (e.g. every cell of a table) are counted, not listed.
          const counts = new Map();
          for (const line of list) counts.set(line, (counts.get(line) ?? 0) + 1);
          for (const [line, n] of counts) failures.push(`${name} @${width} ${colorScheme} [${kind}] ${line}${n > 1 ? ` (×${n})` : ''}`);
        }
        if (SCREENSHOT_WIDTHS.includes(width)) {
          fs.mkdirSync(artifactsDir, { recursive: true });
          await page.screenshot({ path: path.join(artifactsDir, `layout-${name.replace(/\.html$/, '').replace(/\//g, '-')}-${width}-${colorScheme}.png`), fullPage: true });
        }
        assert.deepEqual(page.problems, [], `${name} @${width}`);
        await page.close();
      }
    }
    if (failures.length) {
      fs.mkdirSync(path.join(root, 'test-results'), { recursive: true });
      fs.writeFileSync(path.join(root, `test-results/layout-${colorScheme}.txt`), `${failures.join('\n')}\n`);
    }
    assert.deepEqual(failures, [], `${failures.length} layout problems (also in test-results/layout-${colorScheme}.txt)`);
  });
}
