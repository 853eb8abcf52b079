// Script time per redraw in Chromium of the first article's query–key canvas (a vector tip
// dragged, the score scale slid, a tip dragged under a change of basis) and of the feature-
// recovery training replay while the scrubber moves. Target: < 4 ms of script per frame.
//
// Method (reusable for any widget: see measureFrames):
//   - one redraw per animation frame, as a drag or a scrub produces them: in a
//     requestAnimationFrame callback, set the attribute, then renderNow() (the element's whole
//     update: core calls, scenes, DOM); performance.now() around it gives the wall time;
//   - the same frames are traced over the DevTools protocol (Tracing, the light categories
//     devtools.timeline + v8 + blink_gc; disabled-by-default-devtools.timeline would inflate the
//     script time several-fold): each callback's FireAnimationFrame event carries `tdur`, the
//     main thread's CPU time, which excludes the time the renderer waits while other processes
//     of a shared machine run (the wall-time tail on a loaded machine is mostly that);
//     garbage-collection events (MinorGC, MajorGC, V8.GC_*, BlinkGC.*) inside a callback are
//     counted and summed, and the browser's own work after the script (UpdateLayoutTree, Layout,
//     PrePaint, Paint) is reported beside it;
//   - 40 frames of warm-up (JIT, caches), then STEPS measured frames; medians and 95th percentiles.
// Needs a built site (./dev build). Not a test.
import { startSession } from '../tests/browser/helpers.mjs';

const STEPS = Number(process.env.CANVAS_BENCH_STEPS ?? 400);
/** 'canvas' or 'replay' measures that widget only (default: both). */
const ONLY = process.env.CANVAS_BENCH_ONLY ?? '';
const WARMUP = 40;
const TARGET_MS = 4;
const RENDERING = new Set(['UpdateLayoutTree', 'Layout', 'PrePaint', 'Paint', 'Layerize', 'RecalculateStyles']);
const isGc = (name) => /^(MinorGC|MajorGC|V8\.GC_|V8\.GCScavenger|V8\.GCCompactor|BlinkGC\.|ThreadState::|GCEvent)/.test(name);

/**
 * Runs `steps` redraws, one per animation frame, in the page: window.__benchStep(i) sets the
 * state and renders. Returns per-frame { wall, cpu, gcCount, gcMs, rendering } in ms.
 */
async function measureFrames(page, cdp, steps) {
  const events = [];
  const collect = (e) => {
    for (const x of e.value) events.push(x);
  };
  cdp.on('Tracing.dataCollected', collect);
  const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', {
    transferMode: 'ReportEvents',
    traceConfig: { includedCategories: ['devtools.timeline', 'v8', 'blink_gc', 'blink.user_timing'] },
  });
  const wall = await page.evaluate(
    (n) =>
      new Promise((resolve) => {
        const out = [];
        let i = 0;
        const frame = () => {
          performance.mark(`redraw-${i}`);
          const t0 = performance.now();
          window.__benchStep(i);
          out.push(performance.now() - t0);
          i += 1;
          if (i < n) requestAnimationFrame(frame);
          else requestAnimationFrame(() => requestAnimationFrame(() => resolve(out))); // let the last frame paint
        };
        requestAnimationFrame(frame);
      }),
    steps,
  );
  await cdp.send('Tracing.end');
  await done;
  cdp.off('Tracing.dataCollected', collect);

  // The renderer main thread is the one that ran our marks.
  const marks = events.filter((e) => e.cat?.includes('blink.user_timing') && /^redraw-\d+$/.test(e.name));
  const tid = marks[0]?.tid;
  const main = events.filter((e) => e.tid === tid && e.ph === 'X').sort((a, b) => a.ts - b.ts);
  const callbacks = main.filter((e) => e.name === 'FireAnimationFrame');
  const markTimes = marks.map((m) => m.ts).sort((a, b) => a - b);
  // Our callbacks: the FireAnimationFrame events that contain one of our marks.
  const ours = markTimes.map((t) => callbacks.find((c) => c.ts <= t && t <= c.ts + c.dur)).filter(Boolean);
  return ours.map((c, k) => {
    const end = c.ts + c.dur,
      next = ours[k + 1]?.ts ?? Infinity;
    const inside = main.filter((e) => e.ts >= c.ts && e.ts + (e.dur ?? 0) <= end);
    // Top-level collections only (a collection's phases are nested events of their own).
    const gcAll = inside.filter((e) => isGc(e.name));
    const gc = gcAll.filter((e) => !gcAll.some((o) => o !== e && o.ts <= e.ts && e.ts + e.dur <= o.ts + o.dur));
    if (process.env.CANVAS_BENCH_DEBUG && gc.length)
      console.log(
        gc.map((e) => `${e.name} ${(e.dur / 1000).toFixed(2)} ms (cpu ${((e.tdur ?? 0) / 1000).toFixed(2)})`).join(', '),
        `in a ${(c.dur / 1000).toFixed(2)} ms callback`,
      );
    const after = main.filter((e) => e.ts >= end && e.ts < next && RENDERING.has(e.name));
    return {
      wall: wall[k],
      cpu: (c.tdur ?? c.dur) / 1000,
      gcCount: gc.length,
      gcMs: gc.reduce((s, e) => s + (e.tdur ?? e.dur), 0) / 1000,
      rendering: after.reduce((s, e) => s + (e.tdur ?? e.dur), 0) / 1000,
    };
  });
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const ms = (x) => x.toFixed(2).padStart(6);

function report(name, frames) {
  const col = (key) =>
    `${ms(
      quantile(
        frames.map((f) => f[key]),
        0.5,
      ),
    )} ${ms(
      quantile(
        frames.map((f) => f[key]),
        0.95,
      ),
    )}`;
  const withGc = frames.filter((f) => f.gcCount > 0);
  const gcMs = withGc.reduce((s, f) => s + f.gcMs, 0);
  const cpuP95 = quantile(
    frames.map((f) => f.cpu),
    0.95,
  );
  console.log(
    `${name.padEnd(34)} ${col('wall')}   ${col('cpu')}   ${String(withGc.length).padStart(3)} / ${frames.length} (${gcMs.toFixed(1)} ms)   ${col('rendering')}   ${cpuP95 < TARGET_MS ? 'ok' : 'OVER'}`,
  );
}

const session = await startSession({ csp: true });
try {
  console.log(
    `Script time per redraw, one redraw per animation frame, ${STEPS} frames after ${WARMUP} of warm-up (ms; target: script CPU p95 < ${TARGET_MS} ms)`,
  );
  console.log(
    `${'interaction'.padEnd(34)} ${'wall p50'.padStart(6)} ${'p95'.padStart(6)}   ${'CPU p50'.padStart(6)} ${'p95'.padStart(6)}   frames with GC   ${'style+layout+paint CPU p50'.padStart(6)} p95`,
  );
  const page = await session.newPage({ viewport: { width: 1280, height: 900 } });
  const cdp = await page.context().newCDPSession(page);
  await page.goto(`${session.url}articles/projections-matching-and-content.html`);
  await page.waitForFunction(() => document.getElementById('qk')?.renderCount > 0);
  await page.locator('#qk').scrollIntoViewIfNeeded();
  const canvas = {
    'canvas: drag a query tip': () => {
      window.__benchStep = (i) => {
        const h = document.getElementById('qk');
        h.setAttribute('w-q', `[[${Math.cos(i / 20).toFixed(2)},${Math.sin(i / 20).toFixed(2)}],[0,1]]`);
        h.renderNow();
      };
    },
    'canvas: slide the score scale': () => {
      window.__benchStep = (i) => {
        const h = document.getElementById('qk');
        h.setAttribute('scale', String(0.25 + (i % 100) / 12));
        h.renderNow();
      };
    },
    'canvas: drag under a change of basis': () => {
      document.getElementById('qk').setAttribute('basis', 'invertible');
      window.__benchStep = (i) => {
        const h = document.getElementById('qk');
        h.setAttribute('w-k', `[[1,${(i / 300).toFixed(3)}],[0,1]]`);
        h.renderNow();
      };
    },
  };
  for (const [name, setup] of Object.entries(ONLY === 'replay' ? {} : canvas)) {
    await page.evaluate(setup);
    await measureFrames(page, cdp, WARMUP);
    report(name, await measureFrames(page, cdp, STEPS));
  }

  if (ONLY !== 'canvas') {
    const replayPage = await session.newPage({ viewport: { width: 1280, height: 900 } });
    const replayCdp = await replayPage.context().newCDPSession(replayPage);
    await replayPage.goto(`${session.url}articles/feature-recovery-two-projections.html`);
    await replayPage.locator('#replay').scrollIntoViewIfNeeded(); // it trains once near the viewport
    await replayPage.waitForFunction(() => document.getElementById('replay')?.state?.status === 'done', null, { timeout: 180000 });
    await replayPage.evaluate(() => {
      const h = document.getElementById('replay');
      const n = h.result.snapshots.length;
      window.__benchStep = (i) => {
        h.setAttribute('snapshot', String(i % n));
        h.renderNow();
      };
    });
    // Warm-up over every snapshot once: each snapshot's traced example and scenes are computed on
    // first view and kept, so the first view of a snapshot is reported on its own line.
    const snapshots = await replayPage.evaluate(() => document.getElementById('replay').result.snapshots.length);
    report(
      'replay: first view of each snapshot',
      (await measureFrames(replayPage, replayCdp, Math.max(WARMUP, snapshots))).slice(0, snapshots),
    );
    report('replay: scrub the snapshots', await measureFrames(replayPage, replayCdp, STEPS));
  }
} finally {
  await session.close();
}
