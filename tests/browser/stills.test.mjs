// The stills of the built pages (site/snapshots.mjs, drawn in Node by headlab/ssr) are pictures of
// a state: what a reader without JavaScript sees, and the live widget's first frame. Without
// JavaScript, at 320, 360, 720 and 1280 px, on every built page with headlab-* elements:
//   - no figure says it is training, loading or waiting for a run (WAITING), in what it shows or
//     in its light-DOM summary;
//   - every curve (an SVG polyline) has points to draw: at least two, counted;
//   - every grid of cells (at least MIN_CELLS same-sized rects in one drawing, a heat map) has
//     cells of more than one colour: a map of a state, not the empty grid before one;
//   - a progress bar is empty or full, never stopped partway (a still of a run in progress);
//   - in a chart with a curve (a polyline of MIN_CURVE points or more, left to right), no two texts overlap (its
//     axis title and decade labels at 320 and 360 px above all); in other drawings a rotated label
//     over other text is reported.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { root, screenshot, startSession } from './helpers.mjs';

const site = path.join(root, 'build/site');
const PAGES = fs
  .readdirSync(site, { recursive: true })
  .filter((f) => f.endsWith('.html') && !f.startsWith('headlab') && !f.startsWith('assets'))
  .filter((f) => /<headlab-[a-z-]+/.test(fs.readFileSync(path.join(site, f), 'utf8')))
  .sort();

/** What a figure shows while it has nothing to show yet: none of it may be in a still. */
const WAITING =
  /training…|loading…|Training the replay|No run yet|Not trained yet|Waiting for a trained model|Press Train to run \d|train to fill in|Loading the (model|interactive figure)/i;
/** Same-sized rects in one drawing from which it is a grid of cells (the replay's maps have 27 each). */
const MIN_CELLS = 9;
/** Points from which a polyline is a chart's curve (a loss or score over training steps), not a mark. */
const MIN_CURVE = 10;
/** Overlap, in CSS px each way, below which two text boxes only touch (glyph boxes include their side bearings). */
const TOUCH_PX = 1;

/** Runs in the page (JavaScript off: Playwright's evaluate still runs): what each element's still shows. */
function inspectStills({ MIN_CELLS, MIN_CURVE, TOUCH_PX }) {
  const shown = (e) => e.checkVisibility({ visibilityProperty: true, opacityProperty: false }) && e.getClientRects().length > 0;
  const out = [];
  for (const host of document.querySelectorAll('*')) {
    if (!host.localName.startsWith('headlab-') || !host.shadowRoot || host.localName === 'headlab-value') continue;
    const root = host.shadowRoot;
    const item = {
      tag: host.localName,
      id: host.id,
      text: '',
      summary: '',
      curves: [],
      grids: [],
      progress: [],
      overlaps: [],
      otherOverlaps: [],
    };
    out.push(item);
    const texts = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) if (n.parentElement && shown(n.parentElement)) texts.push(n.textContent);
    item.text = texts.join(' ').replace(/\s+/g, ' ');
    item.summary = host.querySelector(':scope > .hl-snapshot')?.textContent.replace(/\s+/g, ' ') ?? '';
    for (const svg of root.querySelectorAll('svg')) {
      if (!shown(svg)) continue;
      const label = svg.querySelector('title')?.textContent ?? svg.getAttribute('aria-label') ?? '';
      for (const line of svg.querySelectorAll('polyline')) item.curves.push({ label, points: line.points.numberOfItems });
      const bySize = new Map();
      for (const r of svg.querySelectorAll('rect')) {
        const key = `${r.getAttribute('width')}x${r.getAttribute('height')}`;
        if (!bySize.has(key)) bySize.set(key, []);
        bySize.get(key).push(r.getAttribute('fill') ?? getComputedStyle(r).fill);
      }
      for (const [size, fills] of bySize)
        if (fills.length >= MIN_CELLS) item.grids.push({ label, size, cells: fills.length, colours: new Set(fills).size });
      // A curve's chart: no two of its texts overlap (its axis title and the decade labels beside
      // it above all). Elsewhere, a rotated label over other text is reported (item.otherOverlaps).
      // A curve: a polyline of MIN_CURVE points or more going left to right (a loss or a score over
      // the training steps; not the outline of a shape).
      const rightward = (l) => {
        for (let k = 1; k < l.points.numberOfItems; k++) if (l.points.getItem(k).x < l.points.getItem(k - 1).x) return false;
        return true;
      };
      const curve = [...svg.querySelectorAll('polyline')].some((l) => l.points.numberOfItems >= MIN_CURVE && rightward(l));
      const all = [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim() && shown(t));
      const rotated = (t) => /rotate/.test(t.getAttribute('transform') ?? '');
      const boxes = all.map((t) => t.getBoundingClientRect());
      for (let i = 0; i < all.length; i++)
        for (let j = i + 1; j < all.length; j++) {
          if (!curve && rotated(all[i]) === rotated(all[j])) continue;
          const a = boxes[i],
            b = boxes[j];
          const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
          const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
          if (w > TOUCH_PX && h > TOUCH_PX)
            (curve ? item.overlaps : item.otherOverlaps).push(
              `"${all[i].textContent}" and "${all[j].textContent}" overlap (${w.toFixed(1)} × ${h.toFixed(1)} px) in "${label}"`,
            );
        }
    }
    for (const p of root.querySelectorAll('progress')) if (shown(p)) item.progress.push({ value: p.value, max: p.max });
  }
  return out;
}

let session;
before(async () => {
  session = await startSession({ dir: site, csp: true });
});
after(async () => {
  await session?.close();
});

for (const width of [320, 360, 720, 1280]) {
  test(`without JavaScript every still shows a state, not a figure waiting for one (${width} px)`, async (t) => {
    assert.ok(PAGES.length >= 5, PAGES.join(', '));
    const problems = [];
    const others = new Set();
    let curves = 0,
      points = 0,
      grids = 0,
      stills = 0;
    for (const rel of PAGES) {
      const page = await session.newPage({ javaScriptEnabled: false, viewport: { width, height: 900 } });
      await page.goto(`${session.url}${rel}`);
      const items = await page.evaluate(inspectStills, { MIN_CELLS, MIN_CURVE, TOUCH_PX });
      for (const [i, s] of items.entries()) {
        const where = `${rel} #${i} <${s.tag}${s.id ? ` id="${s.id}"` : ''}> at ${width} px`;
        stills++;
        const waiting = WAITING.exec(s.text) ?? WAITING.exec(s.summary);
        if (waiting) problems.push(`${where}: says "${waiting[0]}"`);
        for (const c of s.curves) {
          curves++;
          points += c.points;
          if (c.points < 2) problems.push(`${where}: a curve with ${c.points} points in "${c.label}"`);
        }
        for (const g of s.grids) {
          grids++;
          if (g.colours < 2) problems.push(`${where}: ${g.cells} cells of one colour in "${g.label}"`);
        }
        for (const p of s.progress)
          if (p.value > 0 && p.value < p.max) problems.push(`${where}: a progress bar stopped at ${p.value} of ${p.max}`);
        for (const o of s.overlaps) problems.push(`${where}: ${o}`);
        for (const o of s.otherOverlaps) others.add(`${rel} <${s.tag}> at ${width} px: ${o.replace(/ in ".*"$/, '')}`);
      }
      if (rel.includes('feature-recovery')) {
        for (const scheme of ['light', 'dark']) {
          const shot = await session.newPage({ javaScriptEnabled: false, viewport: { width, height: 900 }, colorScheme: scheme });
          await shot.goto(`${session.url}${rel}`);
          for (const id of ['replay', 'feature-recovery', 'interventions'])
            await screenshot(shot.locator(`#${id}`), `still-${id}-${width}-${scheme}`);
          await shot.close();
        }
      }
      assert.deepEqual(page.problems, []);
      await page.close();
    }
    if (others.size) t.diagnostic(`rotated labels over other text outside curves' charts (not asserted): ${[...others].join('; ')}`);
    t.diagnostic(`${stills} stills on ${PAGES.length} pages: ${curves} curves with ${points} points, ${grids} grids of cells`);
    assert.deepEqual(problems, []);
  });
}

/** A main-thread task longer than this is a "long task" (Long Tasks API), one a reader can feel as a stall. */
const LONG_TASK_MS = 50;

test(`the feature-recovery article goes live from its stills (runs trained as the figures start) with no main-thread task over ${LONG_TASK_MS} ms`, async (t) => {
  const { traced } = await import('./long-tasks.mjs');
  for (const width of [1280, 360]) {
    const page = await session.newPage({ viewport: { width, height: 900 } });
    const longest = await traced(session.browser, page, async () => {
      await page.goto(`${session.url}articles/feature-recovery-two-projections.html`);
      // Every figure live (its still swapped for it) and computing nothing more.
      await page.waitForFunction(
        () =>
          [...document.querySelectorAll('*')]
            .filter((e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value')
            .every(
              (e) => e.renderCount > 0 && !e.updatePending && !e.busy && !e.shadowRoot.querySelector('link[href*="headlab/snapshot/"]'),
            ),
        null,
        { timeout: 120_000 },
      );
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r))));
    });
    t.diagnostic(
      `${width} px: longest main-thread task ${longest.ms.toFixed(1)} ms CPU computation (task ${longest.taskMs.toFixed(1)} ms CPU, ${longest.wallMs.toFixed(1)} ms wall); ${longest.what}`,
    );
    assert.ok(longest.ms < LONG_TASK_MS, `${width} px: a main-thread task of ${longest.ms.toFixed(1)} ms CPU (${longest.what})`);
    const shown = await page.evaluate(() => ({
      replay: document.getElementById('replay').state.status,
      trainer: document.getElementById('feature-recovery').state.status,
      interventions: document.getElementById('interventions').state.clean_mse,
    }));
    assert.deepEqual({ ...shown, interventions: shown.interventions !== null }, { replay: 'done', trainer: 'done', interventions: true });
    assert.deepEqual(page.problems, []);
    await page.close();
  }
});
