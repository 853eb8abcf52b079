// Script time per redraw in Chromium of the first article's query–key canvas while a vector tip
// is dragged (the w-q attribute moves one step, then renderNow(): core calls + scene + SVG) and
// while the score scale slides, and of the feature-recovery training replay while the scrubber
// moves (snapshot attribute + renderNow(): four scenes and the traced example). Medians and 95th
// percentiles of 300 steps each; target < 4 ms.
// Needs a built site (./dev build). Not a test.
import { startSession } from '../tests/browser/helpers.mjs';

const STEPS = 300;
const session = await startSession({ csp: true });
try {
  const page = await session.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${session.url}articles/projections-matching-and-content.html`);
  await page.waitForFunction(() => document.getElementById('qk')?.renderCount > 0);
  const runs = await page.evaluate((steps) => {
    const host = document.getElementById('qk');
    const measure = (set) => {
      const out = [];
      for (let i = 0; i < steps; i++) {
        const t0 = performance.now();
        set(i);
        host.renderNow();
        out.push(performance.now() - t0);
      }
      return out;
    };
    // Warm-up (JIT), then the two interactions.
    measure((i) => host.setAttribute('w-q', `[[${Math.cos(i / 9).toFixed(2)},0],[0,1]]`));
    return {
      'drag a query tip': measure((i) => host.setAttribute('w-q', `[[${Math.cos(i / 20).toFixed(2)},${Math.sin(i / 20).toFixed(2)}],[0,1]]`)),
      'slide the score scale': measure((i) => host.setAttribute('scale', String(0.25 + (i % 100) / 12))),
      'drag under a change of basis': (host.setAttribute('basis', 'invertible'),
        measure((i) => host.setAttribute('w-k', `[[1,${(i / 300).toFixed(3)}],[0,1]]`))),
    };
  }, STEPS);
  const replayPage = await session.newPage({ viewport: { width: 1280, height: 900 } });
  await replayPage.goto(`${session.url}articles/feature-recovery-two-projections.html`);
  await replayPage.locator('#replay').scrollIntoViewIfNeeded();  // it trains once near the viewport
  await replayPage.waitForFunction(() => document.getElementById('replay')?.state?.status === 'done', null, { timeout: 120000 });
  runs['scrub the training replay'] = await replayPage.evaluate((steps) => {
    const host = document.getElementById('replay');
    const n = host.result.snapshots.length;
    for (let i = 0; i < n; i++) { host.setAttribute('snapshot', String(i)); host.renderNow(); }  // warm-up, examples cached
    const out = [];
    for (let i = 0; i < steps; i++) {
      const t0 = performance.now();
      host.setAttribute('snapshot', String(i % n));
      host.renderNow();
      out.push(performance.now() - t0);
    }
    return out;
  }, STEPS);
  for (const [name, times] of Object.entries(runs)) {
    times.sort((a, b) => a - b);
    const median = times[times.length >> 1], p95 = times[Math.floor(times.length * 0.95)];
    console.log(`query-key canvas, ${name}: median ${median.toFixed(3)} ms, p95 ${p95.toFixed(3)} ms per redraw (${STEPS} steps; target < 4 ms)`);
  }
} finally {
  await session.close();
}
