// The longest main-thread task of a page in a Chromium trace: shared by the product sweep's
// long-task test (tests/browser/product-sweep.test.mjs) and the widget benchmark
// (bench/widgets.bench.mjs).
//
// A task is a RunTask of the renderer main thread (CrRendererMain), the unit a reader's input
// waits behind. Two choices, both about measuring the page's own work:
//   - Time is the thread's CPU time (the trace event's `tdur`, from the thread clock), not the
//     wall duration (`dur`): on a loaded machine (CI's 2 shared cores, a browser being traced) a
//     task's wall time includes the time the thread sat descheduled, which measures the machine,
//     not the page. On a quiet machine the two agree closely (the benchmark prints both).
//   - A task's figure is its computation: the task's CPU time less the browser's own document
//     steps run at its top level (parsing the HTML, style, layout, paint, compositing: the
//     `RENDERING` events below). Those depend on how much text and how many figures a page shows,
//     not on what the widgets compute; a page's first layout of a long article with its
//     prerendered figures is tens of ms by itself. The commit of the navigation is one of them
//     (isNavigationCommit). Receiving the document's later bytes is not: it grows with the page's
//     size, which is the site's doing (site/ssr/snapshot-markup.js compactDrawing). Style and layout that a script forces (reading
//     a size after a change) are inside the script's event and count as computation.
// Both figures are returned: `ms` (computation) and `taskMs` (the whole task), with `wallMs`.

/** RunTask (toplevel) for the task lengths, devtools.timeline for its parts; nothing heavier (tracing costs time too). */
export const TRACE_CATEGORIES = ['toplevel', 'devtools.timeline'];

/** A task of the main thread's scheduler: 'RunTask' (devtools.timeline) or its 'toplevel' twin. */
const TASK_EVENTS = new Set(['RunTask', 'ThreadControllerImpl::RunTask']);

/** The browser's document steps (HTML parsing, style, layout, paint, compositing) at a task's top level. */
const RENDERING = new Set([
  'ParseHTML',
  'HTMLDocumentParser::MaybeFetchQueuedPreloads',
  'UpdateLayoutTree',
  'Layout',
  'PrePaint',
  'Paint',
  'Layerize',
  'UpdateLayer',
  'UpdateLayerTree',
  'HitTest',
  'ScrollLayer',
  'Commit',
  'IntersectionObserverController::computeIntersections',
  'ParseAuthorStyleSheet',
]);

/**
 * The renderer main threads ("pid:tid") of the page under test: CrRendererMain threads of a
 * process that loaded an http(s) document or script, or that placed a headlab-* user-timing mark
 * (traced() marks the page at the end of every trace; the widget samples are marked). A browser
 * trace also holds Chromium's own WebUI renderers (chrome://omnibox-popup.top-chrome and its
 * chrome://resources modules, started by the browser in some runs and not others): evaluating
 * their modules is one 40–110 ms CPU task (v8.evaluateModule) that is no part of the page, and
 * their animation frames overlap the page's in time. Throws when the trace shows no page thread
 * (a figure of 0 ms must not pass for a measurement).
 */
export function pageMainThreads(events) {
  const mains = new Set(
    events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`),
  );
  const pagePids = new Set();
  for (const e of events) {
    if (!mains.has(`${e.pid}:${e.tid}`)) continue;
    const url = e.args?.data?.url ?? e.args?.beginData?.url;
    if ((typeof url === 'string' && /^https?:/.test(url)) || (typeof e.name === 'string' && e.name.startsWith('headlab-')))
      pagePids.add(e.pid);
  }
  if (!pagePids.size)
    throw new Error('the trace shows no main thread of the page under test (no http(s) document or script, no headlab-* mark)');
  return new Set([...mains].filter((key) => pagePids.has(Number(key.split(':')[0]))));
}

/**
 * The browser's commit of a navigation: the renderer receives the navigation (a mojo message of
 * content.mojom.NavigationClient) and creates the document, the window and its V8 context before
 * any of the page's script can run (its scripts are modules, deferred). Like parsing the HTML it is
 * the browser's own document step: 15–22 ms for the 12 KB core-check page at load 13, and up to
 * 41.5 ms for it beside two busy loops, where a page's own task must stay under 50.
 */
const isNavigationCommit = (e) =>
  e.name === 'Receive mojo message' && e.args?.chrome_mojo_event_info?.mojo_interface_tag === 'content.mojom.NavigationClient';
/** An event's thread CPU time in µs (its wall duration when the trace has no thread clock). */
const cpu = (e) => e.tdur ?? e.dur;

/**
 * The main-thread task with the most computation in the trace `buffer`:
 * { ms: its computation (CPU ms), taskMs: its whole CPU ms, wallMs, what: its longest part,
 *   e.g. "FunctionCall (render) 31.2 ms" }.
 */
export function longestTask(buffer) {
  const events = JSON.parse(buffer.toString('utf8')).traceEvents ?? [];
  const mains = pageMainThreads(events);
  // Per main thread: its tasks and its other timeline events, in time order (longer first at equal start).
  const threads = new Map();
  for (const e of events) {
    if (e.ph !== 'X' || !mains.has(`${e.pid}:${e.tid}`)) continue;
    const key = `${e.pid}:${e.tid}`;
    if (!threads.has(key)) threads.set(key, { tasks: [], parts: [] });
    if (TASK_EVENTS.has(e.name)) threads.get(key).tasks.push(e);
    else if (e.cat?.includes('devtools.timeline') || isNavigationCommit(e)) threads.get(key).parts.push(e);
  }
  let best = null;
  for (const { tasks, parts } of threads.values()) {
    tasks.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
    parts.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
    let p = 0;
    for (const task of tasks) {
      const end = task.ts + task.dur;
      while (p < parts.length && parts[p].ts < task.ts) p++;
      // Top-level parts: each starts after the one before has ended.
      let rendering = 0,
        longest = null,
        topEnd = -Infinity;
      for (let i = p; i < parts.length && parts[i].ts <= end; i++) {
        const e = parts[i];
        if (e.ts + e.dur > end) continue;
        if (!longest || cpu(e) > cpu(longest)) longest = e;
        if (e.ts < topEnd) continue;
        topEnd = e.ts + e.dur;
        if (RENDERING.has(e.name) || isNavigationCommit(e)) rendering += cpu(e);
      }
      const work = Math.max(0, cpu(task) - rendering);
      if (!best || work > best.work) best = { task, work, longest };
    }
  }
  if (!best) return { ms: 0, taskMs: 0, wallMs: 0, what: 'no task traced' };
  const part = best.longest;
  const d = part?.args?.data ?? {};
  const detail = d.functionName || d.url?.replace(/^https?:\/\/[^/]+\//, '') || d.type || '';
  return {
    ms: best.work / 1000,
    taskMs: cpu(best.task) / 1000,
    wallMs: best.task.dur / 1000,
    what: part ? `${part.name}${detail ? ` (${detail})` : ''} ${(cpu(part) / 1000).toFixed(1)} ms` : '',
  };
}

/**
 * Runs `fn` under a trace of `page` (playwright `browser`) and returns longestTask of what it saw.
 */
export async function traced(browser, page, fn) {
  await browser.startTracing(page, { categories: [...TRACE_CATEGORIES, 'blink.user_timing'] });
  let buffer;
  try {
    await fn();
    // Names the page's renderer in the trace (pageMainThreads), whatever ran in it.
    await page.evaluate(() => performance.mark('headlab-trace-end'));
  } finally {
    buffer = await browser.stopTracing();
  }
  return longestTask(buffer);
}

/** The forced style and layout inside a sample's frame (what `measureScenario` forces after the update). */
const FORCED_LAYOUT = new Set(['UpdateLayoutTree', 'Layout']);

/**
 * Thread CPU time of each sample of `measureScenario(…, { mark: true })` in the trace `buffer`
 * (categories: TRACE_CATEGORIES and 'blink.user_timing'): for each 'headlab-sample' mark, the
 * animation-frame callback event (FireAnimationFrame) around it on the renderer main thread —
 * the input's handler, the render and the forced layout — as { script, withLayout } in ms,
 * script being that event less the style and layout nested in it. CPU, not wall time: on a
 * loaded machine a sample's wall time includes the time the thread sat descheduled.
 * markName 'headlab-settled': the same for each render that drew a worker's answer.
 */
export function sampleCpu(buffer, markName = 'headlab-sample') {
  const events = JSON.parse(buffer.toString('utf8')).traceEvents ?? [];
  const mains = pageMainThreads(events);
  const onMain = (e) => mains.has(`${e.pid}:${e.tid}`);
  const frames = events.filter((e) => e.ph === 'X' && e.name === 'FireAnimationFrame' && onMain(e)).sort((a, b) => a.ts - b.ts);
  const layouts = events.filter((e) => e.ph === 'X' && FORCED_LAYOUT.has(e.name) && onMain(e));
  const marks = events.filter((e) => e.name === markName && onMain(e)).sort((a, b) => a.ts - b.ts);
  const out = [];
  for (const m of marks) {
    const f = frames.find((e) => e.ts <= m.ts && m.ts <= e.ts + e.dur);
    if (!f) continue;
    const nested = layouts.filter((e) => e.ts >= f.ts && e.ts + e.dur <= f.ts + f.dur).reduce((s, e) => s + cpu(e), 0);
    out.push({ script: Math.max(0, cpu(f) - nested) / 1000, withLayout: cpu(f) / 1000 });
  }
  return out;
}
