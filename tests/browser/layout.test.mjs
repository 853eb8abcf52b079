// Layout of every built page at widths from 320 to 1,600 px (anchors and seeded random widths), light and dark, in the
// rendered page, shadow roots included:
//   - no horizontal page overflow;
//   - nothing clipped: an element that sticks out of an ancestor that clips it (overflow other
//     than visible) is allowed only inside a labelled scroll region (a box that scrolls, with
//     an accessible name and in the Tab order, so every reader can reach what is off to the side);
//   - no rendered text under MIN_TEXT_PX, SVG text included: its font size times the scale at
//     which its SVG is drawn (a viewBox shrunk to a phone shrinks its text);
//   - text fields show all their text (the transformer figures' prompts wrap);
//   - on the touch phone (360 px), every widget control at least MIN_TARGET_PX in both directions
//     (a radio button or checkbox counts with its label, which is what a finger hits; cells of a
//     heatmap grid, which are read rather than pressed, are not controls here).
// One test per page. Each page is opened four times, and measured in both colour schemes at each
// width:
//   - prerendered: script off, so every widget shows the snapshot written into the page by the
//     build (what a reader sees before the max-digit figures go live on the first interaction,
//     and what a page opened from disk shows); the window is resized through SWEEP_WIDTHS and at
//     each width the page is measured light and dark (media emulation: without script only the
//     CSS follows, exactly as in a page opened dark);
//   - live: every widget live (the max-digit model loaded), the window resized through the same
//     widths (a resize, not a reload per width: the figures' own resize handling is what is tested,
//     and one page load per sweep keeps the test cheap), measured light and dark at each width
//     after the widgets have redrawn for the scheme (their prefers-color-scheme change handling);
//   - the touch phone at 360 px (pointer: coarse), live, for the touch targets, opened afresh in
//     each scheme (a first load on a phone, light and dark).
// Full-page screenshots of a page at 360 (the phone) and 1280 px, light and dark, are kept in
// test-results/screenshots/layout-*.png for a page with problems, or for every page with
// LAYOUT_SCREENSHOTS=1 (a long article's is a 20,000 px image, each dearer than a width of the sweep).
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

/**
 * The widths swept: fixed anchors (the narrowest, the common phone widths 360, 375, 390, 412 and
 * 428, 622 where the query-key canvas's wrapping row of drawings goes to two columns while the
 * 360 px snapshot is still shown, a tablet 768, 1,024, the wide 1,280 and the widest 1,600) and RANDOM_WIDTHS more drawn
 * uniformly from 320–1,600 px, so that over many runs every width is visited while one run
 * costs 15 resizes instead of 37 (a figure whose layout changes in steps fails between any two
 * grid widths as readily as on them). The draw's seed is printed and named in every failure;
 * LAYOUT_SEED=n replays a draw, LAYOUT_WIDTHS=all sweeps every 40 px from 320 to 1,600 as well.
 */
const ANCHOR_WIDTHS = [320, 360, 375, 390, 412, 428, 622, 768, 1024, 1280, 1600];
const RANDOM_WIDTHS = 5;
/**
 * `./dev test` draws from a fixed seed, so that a run is reproducible and a red CI means a change
 * broke a width that held before; LAYOUT_SEED=random draws new widths (printed), which is how
 * widths between the anchors get explored (one such draw, LAYOUT_SEED=1029326543, found 622 px).
 */
const DEFAULT_LAYOUT_SEED = 1028782961;
const LAYOUT_SEED =
  process.env.LAYOUT_SEED === 'random'
    ? Date.now() % 2 ** 31
    : process.env.LAYOUT_SEED !== undefined
      ? Number(process.env.LAYOUT_SEED)
      : DEFAULT_LAYOUT_SEED;
assert.ok(
  Number.isSafeInteger(LAYOUT_SEED) && LAYOUT_SEED >= 0,
  `LAYOUT_SEED must be a non-negative integer, got ${process.env.LAYOUT_SEED}`,
);
/** A 32-bit LCG (Numerical Recipes' constants): the test's own reproducible draw, not the core's generator. */
function drawWidths(seed, count) {
  let x = seed >>> 0;
  return Array.from({ length: count }, () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return 320 + Math.floor((x / 2 ** 32) * (1600 - 320 + 1));
  });
}
const GRID_WIDTHS = process.env.LAYOUT_WIDTHS === 'all' ? Array.from({ length: 33 }, (_, i) => 320 + 40 * i) : [];
const SWEEP_WIDTHS = [...new Set([...ANCHOR_WIDTHS, ...drawWidths(LAYOUT_SEED, RANDOM_WIDTHS), ...GRID_WIDTHS])].sort((a, b) => a - b);
console.log(`layout sweep: LAYOUT_SEED=${LAYOUT_SEED} widths ${SWEEP_WIDTHS.join(', ')}`);
const PHONE_WIDTH = 360;
const WIDE_WIDTH = 1280;
/** Window height while sweeping (the widths are what changes). */
const HEIGHT = 900;
/** LAYOUT_SCREENSHOTS=1 keeps full-page screenshots of every page; without it, only of a page with problems. */
const SHOTS = process.env.LAYOUT_SCREENSHOTS === '1';

const siteDir = path.join(root, 'build/site');
const PAGES = (function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return d.name === 'headlab' || d.name === 'assets' || d.name === 'data' ? [] : walk(p);
    return d.name.endsWith('.html') ? [path.relative(siteDir, p).split(path.sep).join('/')] : [];
  });
})(siteDir).sort();

let session;
before(async () => {
  session = await startSession({ csp: true });
});
after(async () => {
  await session?.close();
});

/** Runs in the page: resolves when the fonts are loaded and every widget has rendered what the last resize asked for. */
async function settle() {
  await document.fonts.ready;
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  // A resize reaches a widget in a ResizeObserver callback, which asks for a render at the next
  // frame; that render may resize an SVG (a new --hl-text-zoom) or a scroll box (site.js marks
  // it). Settled: three frames in a row without a render of any widget.
  const renders = () =>
    [...document.querySelectorAll('*')].reduce((n, e) => n + (e.localName.startsWith('headlab-') ? (e.renderCount ?? 0) : 0), 0);
  let last = renders(),
    quiet = 0;
  while (quiet < 3) {
    await frame();
    const now = renders();
    quiet = now === last ? quiet + 1 : 0;
    last = now;
  }
}

/** Opens `name` with every widget live (the max-digit figures go live on the first interaction). */
async function openLive(name, width, colorScheme) {
  const phone = width <= 400;
  const page = await session.newPage({
    colorScheme,
    viewport: { width, height: HEIGHT },
    deviceScaleFactor: 1,
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
      .every(
        (e) =>
          (e.renderCount > 0 && !e.shadowRoot?.querySelector('link[href*="headlab/snapshot/"]')) ||
          !e.shadowRoot?.querySelector('.alert')?.hidden,
      );
  });
  await page.evaluate(settle);
  return page;
}

/** Opens `name` as prerendered: script off, every widget its snapshot. */
async function openPrerendered(name, width, colorScheme) {
  const page = await session.newPage({ colorScheme, viewport: { width, height: HEIGHT }, deviceScaleFactor: 1, javaScriptEnabled: false });
  await page.goto(`${session.url}${name}`);
  // No frame callbacks run without script: the measurement's first read lays the page out.
  await page.evaluate(() => document.fonts.ready);
  return page;
}

/**
 * Runs in the page: every layout problem, as readable strings (a text problem as [where, px], so
 * one label found at several widths is one line). `scriptOff`: a page without script, whose
 * scroll boxes cannot be labelled (site.js and the widgets do that): any box that scrolls will do.
 * One pass over the flat tree in one evaluate: each element's computed style, box and nearest
 * clipping ancestor are read once and shared by every check (walking up to the clipping ancestor
 * afresh for every element, with a new computed style per ancestor, was most of the cost).
 */
function measure({ minText, minTarget, slack, phone, scriptOff }) {
  const problems = { overflow: [], clipped: [], text: [], fields: [], targets: [] };
  const all = [];
  (function collect(node) {
    for (const e of node.querySelectorAll('*')) {
      all.push(e);
      if (e.shadowRoot) collect(e.shadowRoot);
    }
  })(document);
  const html = document.documentElement;
  const body = document.body;
  // Parent in the flat tree: a slotted element's slot, a shadow root's host.
  const parentOf = (e) => e.assignedSlot ?? e.parentElement ?? e.parentNode?.host ?? null;
  const hostOf = (e) => {
    const r = e.getRootNode();
    return r instanceof ShadowRoot ? r.host : null;
  };
  const styles = new Map();
  const style = (e) => {
    let cs = styles.get(e);
    if (!cs) styles.set(e, (cs = getComputedStyle(e)));
    return cs;
  };
  const rects = new Map();
  const rect = (e) => {
    let r = rects.get(e);
    if (!r) rects.set(e, (r = e.getBoundingClientRect()));
    return r;
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
    const cs = style(e);
    if (
      cs.display === 'none' ||
      cs.visibility === 'hidden' ||
      (cs.clip && cs.clip !== 'auto') ||
      cs.clipPath !== 'none' ||
      cs.contentVisibility === 'hidden'
    )
      result = true;
    else if (e.localName === 'title' || e.localName === 'desc' || e.localName === 'style' || e.localName === 'script') result = true;
    else if (typeof e.checkVisibility === 'function' && !(e instanceof SVGElement) && !e.checkVisibility({ visibilityProperty: true }))
      result = true;
    else result = visuallyHidden(parentOf(e));
    hiddenCache.set(e, result);
    return result;
  };
  const clips = (cs) => cs.overflowX !== 'visible';
  const scrolls = (cs) => cs.overflowX === 'auto' || cs.overflowX === 'scroll';
  const labelledRegion = (e) => (e.hasAttribute('aria-label') || e.hasAttribute('aria-labelledby')) && e.tabIndex >= 0;
  // The nearest flat-tree ancestor that clips sideways, stopping at <html> or <body> (returned
  // as such) or the top (null); an element's answer is its parent if that clips, else the
  // parent's answer, so each element is asked once.
  const clipCache = new Map();
  const clipAncestor = (e) => {
    if (clipCache.has(e)) return clipCache.get(e);
    const p = parentOf(e);
    const a = !p || p === html || p === body || clips(style(p)) ? p : clipAncestor(p);
    clipCache.set(e, a);
    return a;
  };

  // 1. Horizontal page overflow.
  const scrollWidth = document.scrollingElement.scrollWidth;
  if (scrollWidth > innerWidth) problems.overflow.push(`page is ${scrollWidth} px wide in a ${innerWidth} px window`);

  for (const e of all) {
    if (visuallyHidden(e)) continue;
    const r = rect(e);
    if (r.width > 1 || r.height > 1) {
      // 2. Clipped: sticks out sideways of the nearest ancestor that clips.
      const a = clipAncestor(e);
      // KaTeX draws stretchy delimiters and roots as long paths cut to size by their SVG on purpose.
      const katexCut = a?.localName === 'svg' && a.closest('.katex');
      if (a && a !== html && a !== body && !katexCut) {
        const ar = rect(a);
        if (r.right > ar.right + slack || r.left < ar.left - slack) {
          const ok = scrolls(style(a)) && (scriptOff || labelledRegion(a));
          if (!ok)
            problems.clipped.push(
              `${describe(e)} sticks out of ${describe(a).slice(0, 60)} (${Math.round(r.left - ar.left)}…${Math.round(r.right - ar.left)} of ${Math.round(ar.width)} px)${scrolls(style(a)) ? ': the scroll box has no name or is not in the Tab order' : ''}`,
            );
        }
      }
      // 4. Touch targets on the phone (widget controls and the export menu).
      // Table cells of a roving-tabindex grid (a heatmap) are read, not pressed, and are not counted.
      if (
        phone &&
        hostOf(e) &&
        e.matches('button, select, summary, input:not([type="hidden"]), [role="button"], [tabindex="0"]:not([role="region"], td, th)') &&
        !e.disabled
      ) {
        let box = r;
        if (e.matches('input[type="radio"], input[type="checkbox"]')) box = rect(e.closest('label') ?? e);
        if (box.height < minTarget - 0.5 || box.width < minTarget - 0.5)
          problems.targets.push(`${describe(e)} is ${Math.round(box.width)} × ${Math.round(box.height)} px`);
      }
    }

    // 5. Text fields show all their text (a prompt longer than its field hid the sequence the
    //    article is about): nothing scrolled out of view sideways or below.
    if (e.matches('textarea, input[type="text"], input:not([type])') && e.value) {
      if (e.scrollWidth > e.clientWidth + slack || e.scrollHeight > e.clientHeight + slack) {
        problems.fields.push(
          `${describe(e)} shows part of "${e.value.slice(0, 30)}…" (${e.scrollWidth} × ${e.scrollHeight} px of text in ${e.clientWidth} × ${e.clientHeight})`,
        );
      }
    }

    // 3. Rendered text size, text node by text node.
    if (e.localName === 'svg') continue;
    // Zero-width spaces are KaTeX's struts, not text anyone reads.
    let own = false;
    for (let n = e.firstChild; n && !own; n = n.nextSibling)
      own = n.nodeType === Node.TEXT_NODE && n.textContent.replace(/[\s\u200b]/g, '') !== '';
    if (!own || (r.width === 0 && r.height === 0)) continue;
    let px = parseFloat(style(e).fontSize);
    if (e instanceof SVGElement) {
      // SVG text is drawn at its font size times the scale of its coordinate system.
      const m = e.getScreenCTM();
      if (m) px *= Math.hypot(m.a, m.b);
    }
    if (px < minText - 0.05) problems.text.push([describe(e), px]);
  }
  return problems;
}

/** Adds one width's problems to `found` (kind and line → the widths, the most repeats at one width, the smallest text). */
function record(found, problems, width) {
  for (const [kind, list] of Object.entries(problems)) {
    // Repeats of one kind of element (e.g. every cell of a table) are counted, not listed.
    const here = new Map();
    for (const item of list) {
      const [line, px] = Array.isArray(item) ? item : [item, Infinity];
      const h = here.get(line) ?? { n: 0, px: Infinity };
      here.set(line, { n: h.n + 1, px: Math.min(h.px, px) });
    }
    for (const [line, h] of here) {
      const key = `[${kind}] ${line}`;
      const f = found.get(key) ?? { widths: [], count: 0, px: Infinity };
      found.set(key, { widths: [...f.widths, width], count: Math.max(f.count, h.n), px: Math.min(f.px, h.px) });
    }
  }
}

function report(found, prefix) {
  return [...found].map(
    ([key, f]) =>
      `${prefix} ${key}${f.count > 1 ? ` (×${f.count})` : ''}${Number.isFinite(f.px) ? ` at ${f.px.toFixed(1)} px` : ''} @ ${f.widths.join(', ')} px`,
  );
}

const SCHEMES = ['light', 'dark'];

/**
 * Resizes the page through every width of the sweep and measures it there in both colour schemes
 * (the scheme switched by media emulation, as a reader's system setting changes it: a live widget
 * redraws on the change, which settle() waits for; without script only the CSS follows). The
 * schemes alternate, so each width costs one resize and one switch. Returns scheme → found.
 */
async function sweep(page, scriptOff) {
  const found = Object.fromEntries(SCHEMES.map((s) => [s, new Map()]));
  let order = [...SCHEMES];
  let current = SCHEMES[0];
  for (const width of SWEEP_WIDTHS) {
    await page.setViewportSize({ width, height: HEIGHT });
    for (const colorScheme of order) {
      if (colorScheme !== current) await page.emulateMedia({ colorScheme });
      current = colorScheme;
      if (!scriptOff) await page.evaluate(settle);
      record(
        found[colorScheme],
        await page.evaluate(measure, { minText: MIN_TEXT_PX, minTarget: MIN_TARGET_PX, slack: EDGE_SLACK_PX, phone: false, scriptOff }),
        width,
      );
    }
    order = order.reverse();
  }
  return found;
}

function shoot(page, name, width, colorScheme) {
  fs.mkdirSync(artifactsDir, { recursive: true });
  return page.screenshot({
    path: path.join(artifactsDir, `layout-${name.replace(/\.html$/, '').replace(/\//g, '-')}-${width}-${colorScheme}.png`),
    fullPage: true,
  });
}

/** Layout problems per scheme, written to test-results/layout-<scheme>.txt after the last page. */
const failuresByScheme = Object.fromEntries(SCHEMES.map((s) => [s, []]));
after(() => {
  fs.mkdirSync(path.join(root, 'test-results'), { recursive: true });
  for (const colorScheme of SCHEMES) {
    const file = path.join(root, `test-results/layout-${colorScheme}.txt`);
    if (failuresByScheme[colorScheme].length) fs.writeFileSync(file, `${failuresByScheme[colorScheme].join('\n')}\n`);
    else fs.rmSync(file, { force: true });
  }
});

for (const name of PAGES) {
  test(`${name} at ${SWEEP_WIDTHS[0]}–${SWEEP_WIDTHS.at(-1)} px, light and dark, prerendered and live: no page overflow, nothing clipped outside a labelled scroll region, text ≥ ${MIN_TEXT_PX} px; touch targets ≥ ${MIN_TARGET_PX} px at ${PHONE_WIDTH} px`, async () => {
    const failures = Object.fromEntries(SCHEMES.map((s) => [s, []]));
    const add = (found, mode) => {
      for (const colorScheme of SCHEMES) failures[colorScheme].push(...report(found[colorScheme], `${name} ${mode} ${colorScheme}`));
    };
    // A page without prerendered widgets looks the same with script off.
    if (fs.readFileSync(path.join(siteDir, name), 'utf8').includes('<template shadowrootmode')) {
      const still = await openPrerendered(name, WIDE_WIDTH, SCHEMES[0]);
      add(await sweep(still, true), 'prerendered');
      await still.close();
    }

    const live = await openLive(name, WIDE_WIDTH, SCHEMES[0]);
    add(await sweep(live, false), 'live');
    assert.deepEqual(live.problems, [], `${name} live`);
    // Full-page screenshots cost more than the sweep they would illustrate (a long article is a
    // 20,000 px image per shot): kept for a page with problems, or for every page with
    // LAYOUT_SCREENSHOTS=1.
    const shots = () => SHOTS || SCHEMES.some((s) => failures[s].length);
    if (shots()) {
      await live.setViewportSize({ width: WIDE_WIDTH, height: HEIGHT });
      for (const colorScheme of SCHEMES) {
        await live.emulateMedia({ colorScheme });
        await live.evaluate(settle);
        await shoot(live, name, WIDE_WIDTH, colorScheme);
      }
    }
    await live.close();

    // Opened afresh in each scheme: the first load on a phone, in the dark too.
    for (const colorScheme of SCHEMES) {
      const phone = await openLive(name, PHONE_WIDTH, colorScheme);
      const found = { [colorScheme]: new Map() };
      record(
        found[colorScheme],
        await phone.evaluate(measure, {
          minText: MIN_TEXT_PX,
          minTarget: MIN_TARGET_PX,
          slack: EDGE_SLACK_PX,
          phone: true,
          scriptOff: false,
        }),
        PHONE_WIDTH,
      );
      failures[colorScheme].push(...report(found[colorScheme], `${name} touch phone ${colorScheme}`));
      if (shots()) await shoot(phone, name, PHONE_WIDTH, colorScheme);
      assert.deepEqual(phone.problems, [], `${name} @${PHONE_WIDTH} ${colorScheme}`);
      await phone.close();
    }
    for (const colorScheme of SCHEMES) failuresByScheme[colorScheme].push(...failures[colorScheme]);
    const all = SCHEMES.flatMap((s) => failures[s]);
    assert.deepEqual(
      all,
      [],
      `${all.length} layout problems (also in test-results/layout-{light,dark}.txt); replay with LAYOUT_SEED=${LAYOUT_SEED}`,
    );
  });
}
