// The suite as a product, swept over EVERY page of the built site and EVERY headlab-*
// element found on them (a new widget is covered as soon as it is on a page; it needs an
// entry in widget-states.mjs). <headlab-value>, a number inline in the prose rather than a
// widget, is left out (tests/browser/headlab-value.test.mjs). All under the strict CSP:
//   - axe-core, light and dark: zero serious or critical violations; no console error,
//     no CSP violation, no request to another origin; every element renders and has a
//     text summary;
//   - keyboard: Tab reaches every control of every widget, in document order, each with a
//     visible focus indicator;
//   - prefers-reduced-motion: transitions off;
//   - 360 px with touch (Chromium mobile emulation): no horizontal scrolling, widgets fit,
//     a tap works; screenshots kept;
//   - shareable state: restored from the URL hash, written back on change, a tampered
//     hash gives a message in the widget;
//   - exports: SVG (with <title> and the summary as <desc>), PNG, JSON of every element;
//   - re-attaching: every element removed and re-inserted renders again, and 8 re-attaches
//     leave the page's event listeners (counted by CDP) as many as one does;
//   - bad input: hostile values on every observed attribute, rapid repeated clicks;
//   - memory: 500 updates per element leave the WASM heap in use and the embind
//     handle count flat; removing the widgets releases their worker;
//   - long tasks: no main-thread task over 50 ms of computation at start-up, sweeping every
//     control, retraining or stopping (the first test, on its first visit of each page).
/* global __sweepWidgets, __focusLog, __focusNow -- helpers the test installs in each page it evaluates code in */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { root, screenshot, startSession, trackWorkers, workersEnded } from './helpers.mjs';
import { HOSTILE_VALUES, WIDGET_STATES } from './widget-states.mjs';
import { traced } from './long-tasks.mjs';
import { drawn, frames } from './widget-fixtures.mjs';

const siteDir = path.join(root, 'build/site');
const PAGES = (function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return d.name === 'headlab' || d.name === 'assets' ? [] : walk(p);
    return d.name.endsWith('.html') ? [path.relative(siteDir, p).split(path.sep).join('/')] : [];
  });
})(siteDir)
  .sort()
  // HEADLAB_SWEEP_PAGES=own-model.html,articles/x.html sweeps those pages alone (a change's own pages while it is made).
  .filter((p) => !process.env.HEADLAB_SWEEP_PAGES || process.env.HEADLAB_SWEEP_PAGES.split(',').includes(p));
const AXE = fs.readFileSync(path.join(root, 'node_modules/axe-core/axe.min.js'), 'utf8');
const shotName = (page, suffix) => `sweep-${page.replace(/\.html$/, '').replace(/\//g, '-')}-${suffix}`;

let session;
before(async () => {
  session = await startSession({ csp: true });
});
after(async () => {
  await session?.close();
});

/**
 * A page of the session on which `__sweepWidgets()` (inside page.evaluate and waitForFunction)
 * lists every headlab-* element in document order but the prose values (<headlab-value>): the
 * elements the sweep drives, indexed as listWidgets numbers them.
 */
async function sweepPage(options) {
  const page = await session.newPage(options);
  await trackWorkers(page);
  await page.addInitScript(() => {
    // Jobs posted to a worker that carry a transformer model's weights (bytes, or a Blob the worker
    // streams into its heap), or a feature-recovery run's W_q, W_v (directly, or as the run a
    // source sends to a worker that does not hold it): assertModelHosts.
    window.__weightPosts = { jobs: 0, bytes: 0, featureRecovery: { jobs: 0, bytes: 0 } };
    // The compiled headlab_transformer module the page hands its workers, and every module the
    // page itself instantiates: the page must never instantiate that one (no model on the main thread).
    window.__mainInstances = [];
    window.__transformerModule = null;
    const post = window.Worker.prototype.postMessage;
    window.Worker.prototype.postMessage = function (message, transfer) {
      const p = message?.params;
      const bytes = p?.safetensors?.byteLength ?? p?.weights?.size ?? 0;
      if (bytes) {
        window.__weightPosts.jobs++;
        window.__weightPosts.bytes += bytes;
      }
      if (message?.wasm?.transformer) window.__transformerModule = message.wasm.transformer;
      const projections = [p?.w_q, p?.w_v, p?.run?.w_q, p?.run?.w_v].reduce((n, m) => n + (m?.data?.byteLength ?? 0), 0);
      if (projections) {
        window.__weightPosts.featureRecovery.jobs++;
        window.__weightPosts.featureRecovery.bytes += projections;
      }
      return post.call(this, message, transfer);
    };
    const instantiate = WebAssembly.instantiate;
    WebAssembly.instantiate = function (module, ...rest) {
      if (module instanceof WebAssembly.Module) window.__mainInstances.push(module);
      return instantiate.call(this, module, ...rest);
    };
    window.__sweepWidgets = () =>
      [...document.querySelectorAll('*')].filter((e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value');
  });
  return page;
}

/** Opens `page` and waits until every headlab-* element has rendered (or shows its alert). */
async function open(name, options = {}, hash = '') {
  const page = await sweepPage(options);
  await page.goto(`${session.url}${name}${hash}`);
  await rendered(page);
  return page;
}

/** Waits until every headlab-* element of `page` has rendered live (or shows its alert) and has its worker analyses back. */
async function rendered(page) {
  // A lazily loaded model (loading="lazy") is fetched now, so every widget has its figures.
  await page.waitForFunction(() => {
    for (const m of document.querySelectorAll('headlab-max-digit-model')) m.load?.();
    return __sweepWidgets().every(
      (e) =>
        (e.renderCount > 0 &&
          (!('currentModel' in e) || e.currentModel !== null) &&
          // the prerendered snapshot swapped for the live widget (the max-digit figures swap one per frame)
          !e.shadowRoot?.querySelector('link[href*="headlab/snapshot/"]') &&
          !e.busy) ||
        !e.shadowRoot?.querySelector('.alert')?.hidden,
    );
  });
}

/** Adds one of each of `tags` to the page's body, each through its own entry point headlab/<name>.js (as an author's script tag loads it), then waits until they have rendered. */
async function addElements(page, tags) {
  await page.evaluate(async (list) => {
    for (const t of list) {
      await import(new URL(`/headlab/${t.slice('headlab-'.length)}.js`, location.href).href);
      document.body.append(document.createElement(t));
    }
  }, tags);
  await rendered(page);
}

/** [{ tag, key, hasFigures }] for each headlab-* element of the open page. */
function listWidgets(page) {
  return page.evaluate(() =>
    __sweepWidgets().map((e, i) => ({
      tag: e.localName,
      id: e.id,
      key: e.shareKey,
      index: i,
      figures: e.figures().length,
      share: e.hasAttribute('share-state'),
      attributes: e.getAttributeNames().sort().join(' '),
    })),
  );
}

/**
 * The widgets of a page whose tag no earlier page had (`covered` collects the tags): the loops
 * that drive one element thousands of times (hostile values, 500 updates) test each element
 * once, on the first page that has it — the element, not the page, is what they exercise.
 */
function firstTimeWidgets(widgets, covered) {
  const fresh = widgets.filter((w) => !covered.has(w.tag));
  for (const w of fresh) covered.add(w.tag);
  return fresh;
}

// No main-thread task over 50 ms (a reader's input waits behind the whole task; 50 ms is where
// a delay starts to be felt, the long-task threshold of the web platform), on every page, in each
// phase a reader causes: start-up (every widget live, every worker analysis back), sweeping every
// control of every widget (the inputs of site/assets/bench-widgets.js, a few of each), retraining
// (to the end, with the hand-over of the new model to every figure) and stopping a run. A task is
// measured by the main thread's CPU time in it, not its wall time: CI's loaded 2-core box
// stretches wall time by whatever else runs there, while the CPU time is the page's own work
// (tests/browser/long-tasks.mjs). What is held to 50 ms is the task's computation — its script,
// with any style or layout the script forces — less the browser's own parsing, style, layout and
// paint of the document at the task's top level, which grow with the article's length, not with
// anything computed; the whole task's CPU time is printed beside it. Folded into the sweep's
// first visit of each page, so no page is loaded for it alone.
const LONG_TASK_LIMIT_MS = 50;
/**
 * Phases still over the limit, each held to a ceiling instead (about 1.5 × the figure measured on
 * the loaded 2-core machine, so a regression still fails) until its cause is fixed; the figures
 * and the work left are in docs/limits.md ("Main-thread tasks"). Remove an entry once it passes.
 */
const OVER_THE_LIMIT = {
  // None: every page passes at 50 ms in every phase (docs/limits.md "Main-thread tasks").
};
/** Samples per input in the traced sweep: the first (cold: nothing cached) and one more. */
const SWEEP_SAMPLES = 2;
/** The buttons that start or restart a training run, by element (the seed grid's ten models and the induction run are only started and stopped). */
const TRAIN_BUTTONS = {
  'headlab-feature-recovery': { label: 'Train|Restart', toEnd: true },
  'headlab-max-digit-model': { label: 'Train a new model', toEnd: true },
  'headlab-seed-grid': { label: 'Train these seeds here', toEnd: false },
  'headlab-transformer-training': { label: 'Train|Train again', toEnd: false },
};

test('the sweep sees the site (an entry in widget-states.mjs for every element); no main-thread task over 50 ms of CPU on any page at start-up, sweeping every control, retraining or stopping', async () => {
  assert.ok(PAGES.includes('index.html') && PAGES.length >= 3, PAGES.join(', '));
  const scenarios = new URL('assets/bench-widgets.js', session.url).href;
  const report = [];
  const trained = new Set();
  const started = Date.now();
  for (const name of PAGES) {
    const page = await sweepPage();
    const fetched = new Map();
    page.on('request', (r) => {
      const p = new URL(r.url()).pathname;
      fetched.set(p, (fetched.get(p) ?? 0) + 1);
    });
    const phases = {};
    // Start-up: navigation until every widget is live and no worker analysis is outstanding,
    // module evaluation included (tests/browser/long-tasks.mjs counts the page's renderer only;
    // the 40–110 ms module evaluations once set aside here were Chromium's own WebUI renderer).
    phases['start-up'] = await traced(session.browser, page, async () => {
      await page.goto(`${session.url}${name}`);
      await rendered(page);
      await settled(page);
    });
    const widgets = await listWidgets(page);
    for (const w of widgets) assert.ok(WIDGET_STATES[w.tag], `${w.tag} on ${name} has no entry in tests/browser/widget-states.mjs`);
    await assertModelHosts(page, name, fetched, widgets);
    const copiesBefore = await modelCopies(page);
    if (widgets.length) {
      phases['sweeping the controls'] = await traced(session.browser, page, () =>
        page.evaluate(
          async ([url, samples]) => {
            const m = await import(url);
            for (const e of __sweepWidgets()) {
              for (const scenario of m.SCENARIOS[e.localName] ?? []) {
                e.scrollIntoView({ block: 'center' });
                await m.measureScenario(e, scenario, { samples, warmup: 0, forceLayout: false });
              }
            }
          },
          [scenarios, SWEEP_SAMPLES],
        ),
      );
      await settled(page);
      // No figure update sent a model's weights anywhere: none copied into the page's max-digit
      // module (its figures read the weights held there), none posted to a worker (the transformer
      // figures ask their model source's worker, which keeps the model).
      const copiesAfter = await modelCopies(page);
      assert.deepEqual(copiesAfter, copiesBefore, `${name}: weights crossed a boundary while the controls were swept`);
    }
    // Every training element on every page is retrained to the end: what a new model is handed
    // to depends on the page (max-digit-heads ties a dozen figures to its models). A stop is
    // tested on the first page with that element (it hands nothing over). A panel with
    // no-training (the appendix's) offers no Train to a reader, so none is pressed there.
    const trainers = widgets.filter((w) => TRAIN_BUTTONS[w.tag] && !w.attributes.split(' ').includes('no-training'));
    for (const t of trainers) {
      const firstOfTag = !trained.has(t.tag);
      trained.add(t.tag);
      const what = `${t.tag}${t.id ? `#${t.id}` : ''}`;
      const { label, toEnd } = TRAIN_BUTTONS[t.tag];
      const press = (text) =>
        page.evaluate(
          ([i, text]) => {
            const e = __sweepWidgets()[i];
            e.scrollIntoView({ block: 'center' });
            const b = [...e.shadowRoot.querySelectorAll('button')].find((x) => text.split('|').includes(x.textContent.trim()));
            if (!b) throw new Error(`${e.localName} has no "${text}" button`);
            b.click();
          },
          [t.index, text],
        );
      const statusOf = () => page.evaluate((i) => __sweepWidgets()[i].state.status, t.index);
      const ended = () => page.waitForFunction((i) => __sweepWidgets()[i].state.status !== 'training', t.index, { timeout: 180000 });
      if (toEnd) {
        phases[`retraining ${what}`] = await traced(session.browser, page, async () => {
          await press(label);
          await ended();
          await settled(page);
        });
        assert.equal(await statusOf(), 'done', `${name}: ${what} retraining`);
      }
      if (!firstOfTag) continue;
      phases[`stopping ${what}`] = await traced(session.browser, page, async () => {
        await press(label);
        // Under way: its progress bar has moved (a progress message arrived), or it already ended.
        await page.waitForFunction(
          (i) => {
            const e = __sweepWidgets()[i];
            const bar = e.shadowRoot.querySelector('progress');
            return e.state.status !== 'training' || (bar && bar.value > 0 && bar.value < bar.max);
          },
          t.index,
          { timeout: 180000 },
        );
        await press('Stop');
        await ended();
        await settled(page);
      });
      assert.notEqual(await statusOf(), 'failed', `${name}: ${what} after a stop`);
    }
    // Through start-up, the sweep and every retraining, no feature-recovery figure sent a run's
    // W_q, W_v to a worker: the trainer's worker keeps each run it trained and answers them.
    assert.deepEqual(
      await page.evaluate(() => window.__weightPosts.featureRecovery),
      { jobs: 0, bytes: 0 },
      `${name}: a feature-recovery run's W_q, W_v were posted to a worker`,
    );
    for (const [phase, t] of Object.entries(phases)) report.push({ name, phase, ...t });
    assert.deepEqual(page.problems, [], name);
    await page.close();
  }
  for (const r of report)
    console.log(
      `# longest task ${r.name} ${r.phase}: ${r.ms.toFixed(1)} ms computation (task ${r.taskMs.toFixed(1)} ms CPU, ${r.wallMs.toFixed(1)} ms wall); ${r.what}`,
    );
  console.log(`# long-task sweep of ${PAGES.length} pages in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const over = report.filter((r) => r.ms >= (OVER_THE_LIMIT[`${r.name}|${r.phase}`]?.ceilingMs ?? LONG_TASK_LIMIT_MS));
  assert.deepEqual(
    over.map((r) => `${r.name} ${r.phase}: ${r.ms.toFixed(1)} ms (${r.what})`),
    [],
    `main-thread tasks over ${LONG_TASK_LIMIT_MS} ms of CPU (or over the ceiling of a phase still listed in OVER_THE_LIMIT)`,
  );
});

/**
 * Waits until no widget of `page` has an analysis in its worker (`busy`) or an update scheduled
 * (`updatePending`), still so after a frame: widget-fixtures.mjs's frames().
 */
/**
 * What a page's model sources hold, once every widget is live (docs/model-pattern.md, "One host per
 * model"): each .wasm and each data file fetched at most once; no more workers alive than model
 * sources and training elements; each transformer model's files read by the core in one worker.
 */
async function assertModelHosts(page, name, fetched, widgets) {
  const twice = [...fetched].filter(([p, n]) => n > 1 && (/\.wasm$/.test(p) || /\/data\//.test(p)));
  assert.deepEqual(twice, [], `${name}: fetched more than once`);
  const tags = widgets.map((w) => w.tag);
  const count = (...t) => tags.filter((x) => t.includes(x)).length;
  // Model sources (each owns at most one worker) and the elements that train in a worker of their
  // own; the feature-recovery trainer's worker also answers its figures (no worker of their own).
  const hosts =
    count('headlab-transformer-model', 'headlab-max-digit-model') +
    count('headlab-feature-recovery', 'headlab-transformer-training', 'headlab-training-replay', 'headlab-seed-grid');
  const alive = await page.evaluate(() => window.__workerLog.filter((w) => !w.terminated).length);
  assert.ok(alive <= hosts, `${name}: ${alive} workers alive for ${hosts} model sources and trainers`);
  const reads = await page.evaluate(() => window.__weightPosts.jobs);
  const sources = count('headlab-transformer-model');
  assert.ok(reads <= sources, `${name}: a transformer model's weights were sent to workers ${reads} times for ${sources} sources`);
  // No model on the main thread: the page never instantiates headlab_transformer (it compiles it
  // for the workers), and no source's model holds a core handle or any array of weights (the
  // weights stay a Blob, the File or download the worker streamed into its heap).
  const main = await page.evaluate(() => ({
    instantiated: window.__transformerModule !== null && window.__mainInstances.includes(window.__transformerModule),
    held: [...document.querySelectorAll('headlab-transformer-model')].flatMap((m) =>
      Object.entries(m.modelSource?.model ?? {})
        .filter(([k, v]) => k === 'handle' || ArrayBuffer.isView(v) || v instanceof ArrayBuffer)
        .map(([k]) => `#${m.id}: ${k}`),
    ),
  }));
  assert.equal(main.instantiated, false, `${name}: the page instantiated headlab_transformer.wasm on its main thread`);
  assert.deepEqual(main.held, [], `${name}: a transformer model held on the main thread`);
}

/** Weights that crossed a boundary so far: bytes copied into the page's max-digit module, and weight bytes posted to workers. */
function modelCopies(page) {
  return page.evaluate(() => {
    const figure = __sweepWidgets().find((e) => e.maxDigit);
    return {
      maxDigit: figure ? figure.maxDigit.memoryDiagnostics().bytes_copied_in : 0,
      posted: window.__weightPosts.bytes,
      featureRecovery: window.__weightPosts.featureRecovery.bytes,
    };
  });
}

async function settled(page) {
  await frames(page);
}

test('every page, light then dark: axe-core finds no serious or critical violation; no console error or other origin; every element summarised', async () => {
  for (const name of PAGES) {
    const page = await open(name, { colorScheme: 'light' });
    // evaluate() runs as the debugger, which the page's CSP does not restrict (a <script> tag would be refused).
    await page.evaluate(AXE);
    // The page is checked light, then switched to dark as a reader's system switches it: the same
    // widgets must re-theme in place (one load per page, not one per scheme).
    for (const colorScheme of ['light', 'dark']) {
      if (colorScheme === 'dark') {
        await page.emulateMedia({ colorScheme });
        await settled(page);
      }
      const violations = await page.evaluate(async () => {
        // Only serious and critical violations fail the test, so the rules that can report nothing
        // else are not run: a rule's impact is its own or the highest of its checks' (axe's rule and
        // check metadata), and a rule whose every impact is minor or moderate is switched off. Those
        // (region, the landmark rules, heading order…) were about half of axe's time on the longest
        // article. A rule or check whose impact is unknown is kept.
        const rank = { minor: 1, moderate: 2, serious: 3, critical: 4 };
        const checks = window.axe._audit.data.checks;
        const low = window.axe._audit.rules.filter((rule) =>
          [rule.impact, ...[...rule.any, ...rule.all, ...rule.none].map((c) => checks[c.id ?? c]?.impact)].every((i) => rank[i] < 3),
        );
        const rules = Object.fromEntries(low.map((rule) => [rule.id, { enabled: false }]));
        const r = await window.axe.run(document, { resultTypes: ['violations'], rules });
        return r.violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map(
            (v) =>
              `${v.id} (${v.impact}): ${v.nodes
                .slice(0, 3)
                .map((n) => JSON.stringify(n.target))
                .join(' ')}`,
          );
      });
      assert.deepEqual(violations, [], `${name} (${colorScheme})`);
      await screenshot(page, shotName(name, colorScheme));
    }
    const summaries = await page.evaluate(() =>
      __sweepWidgets().map((e) => ({
        tag: e.localName,
        summary: e.summary,
        inRoot: e.shadowRoot.querySelector('.summary')?.textContent,
      })),
    );
    for (const s of summaries) {
      assert.ok(s.summary.length > 20, `${name}: ${s.tag} has no text summary`);
      assert.equal(s.inRoot, s.summary);
    }
    assert.deepEqual(page.problems, [], name);
    await page.close();
  }
});

/**
 * `page` (from sweepPage: one per test, reused from page to page) navigated to site page `name`
 * and rendered as open() leaves it: a new document, its widgets, workers and listeners its own,
 * without a new browser context and renderer process per page (seconds each on a loaded 2-core
 * box). The site keeps no storage, so nothing carries over but the browser's caches. The page's
 * `problems` are never cleared: one from any page fails every check after it.
 */
async function visit(page, name) {
  await page.goto(`${session.url}${name}`);
  await rendered(page);
}

/**
 * Presses Tab up to `max` times on `page` and returns where the focus was after each press, up
 * to the press that left the page's last control (focus back on the body): { widget (index in
 * __sweepWidgets, -1 outside any), id, visible (a 1 px+ outline or a box-shadow), what }. The
 * focus is read by a keydown listener (capturing, on the window: before the key moves it), so
 * press k+1 reads the focus press k left — in the page, instead of a round trip per press; the
 * presses go in batches of TAB_BATCH with one read of the log per batch.
 */
const TAB_BATCH = 24;
async function tabThrough(page, max) {
  await page.evaluate(() => {
    window.__focusNow = () => {
      let a = document.activeElement;
      let host = null;
      while (a?.shadowRoot?.activeElement) {
        host = a;
        a = a.shadowRoot.activeElement;
      }
      if (!a || a === document.body) return null;
      const cs = getComputedStyle(a);
      const visible = (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 1) || cs.boxShadow !== 'none';
      const id =
        a.name && a.type === 'radio'
          ? `radio:${a.name}`
          : `${a.localName}:${[...(host?.shadowRoot ?? document).querySelectorAll('*')].indexOf(a)}`;
      return {
        widget: host ? __sweepWidgets().indexOf(host) : -1,
        id,
        visible,
        what: `${a.localName} ${a.getAttribute('aria-label') ?? a.textContent?.slice(0, 30) ?? ''}`,
      };
    };
    window.__focusLog = [];
    addEventListener('keydown', (ev) => ev.key === 'Tab' && __focusLog.push(__focusNow()), true);
    // Tab past the last control takes the focus out of the page (to the browser, no element
    // gaining it: relatedTarget null), and the next press, which brings it back to the first
    // control, reaches no listener of the page: the leaving is logged here, as the body.
    addEventListener('focusout', (ev) => ev.relatedTarget === null && __focusLog.push(null), true);
  });
  // log[k]: the focus before press k+1, i.e. after press k (log[0], before any press, is dropped),
  // until the null of the focus leaving the page.
  const log = [];
  for (let pressed = 0; pressed < max;) {
    for (const end = Math.min(max, pressed + TAB_BATCH); pressed < end; pressed++) await page.keyboard.press('Tab');
    log.push(...(await page.evaluate(() => __focusLog.splice(0))));
    const left = log.indexOf(null, 1);
    if (left > 0) return log.slice(1, left);
  }
  // Never back on the body within `max` presses: the last press's focus too.
  return [...log.slice(1), await page.evaluate(() => __focusNow())].filter((f) => f);
}

test('keyboard: Tab reaches every widget control in document order, each with a visible focus indicator', async () => {
  const page = await sweepPage();
  for (const name of PAGES) {
    await visit(page, name);
    // Focusable controls per widget, radio groups counted once (arrow keys move inside a group).
    const expected = await page.evaluate(() =>
      __sweepWidgets().map((host) => {
        const seen = new Set();
        let n = 0;
        for (const c of host.shadowRoot.querySelectorAll('button, input, select, textarea, a[href], [tabindex]')) {
          if (c.disabled || c.tabIndex < 0 || !c.checkVisibility()) continue;
          if (c.type === 'radio') {
            if (seen.has(c.name)) continue;
            seen.add(c.name);
          }
          n++;
        }
        return n;
      }),
    );
    const widgetsSeen = [];
    const reached = expected.map(() => new Set());
    for (const f of await tabThrough(page, 400)) {
      assert.ok(f.visible, `${name}: no visible focus on ${f.what}`);
      if (f.widget >= 0) {
        reached[f.widget].add(f.id);
        if (widgetsSeen.at(-1) !== f.widget) widgetsSeen.push(f.widget);
      }
    }
    assert.deepEqual(
      widgetsSeen,
      [...widgetsSeen].sort((a, b) => a - b),
      `${name}: widgets reached out of document order`,
    );
    assert.equal(new Set(widgetsSeen).size, widgetsSeen.length, `${name}: focus left a widget and came back`);
    expected.forEach((n, i) => assert.ok(reached[i].size >= n, `${name}: widget ${i} has ${n} controls, Tab reached ${reached[i].size}`));
    assert.deepEqual(page.problems, [], name);
  }
  await page.close();
});

test('prefers-reduced-motion: reduce turns widget transitions off (and the trainer defaults to its fast pace)', async () => {
  const name = PAGES.find((p) => p.includes('projections-matching'));
  // One page, opened without the preference and then switched to it: the media query applies live,
  // and the page as loaded with `reduce` is the feature-recovery page below.
  const page = await open(name, { reducedMotion: 'no-preference' });
  for (const reducedMotion of ['no-preference', 'reduce']) {
    await page.emulateMedia({ reducedMotion });
    const durations = await page.evaluate(() =>
      __sweepWidgets().flatMap((e) => [...e.shadowRoot.querySelectorAll('rect, line')].map((n) => getComputedStyle(n).transitionDuration)),
    );
    assert.ok(durations.length > 0);
    if (reducedMotion === 'reduce')
      assert.ok(
        durations.every((d) => d === '0s'),
        durations.join(' '),
      );
    else assert.ok(durations.some((d) => d !== '0s'));
  }
  await page.close();
  const fr = PAGES.find((p) => p.includes('feature-recovery'));
  if (fr) {
    const page = await open(fr, { reducedMotion: 'reduce' });
    assert.equal(await page.evaluate(() => document.querySelector('headlab-feature-recovery')?.pace), 'fast');
    // Loaded with the preference, too: the transitions are off from the start.
    const durations = await page.evaluate(() =>
      __sweepWidgets().flatMap((e) => [...e.shadowRoot.querySelectorAll('rect, line')].map((n) => getComputedStyle(n).transitionDuration)),
    );
    assert.ok(durations.length > 0 && durations.every((d) => d === '0s'), durations.join(' '));
    await page.close();
  }
});

test('360 px with touch (mobile emulation): no horizontal scrolling, widgets fit, a tap works (each element on the first page that has it); screenshots', async () => {
  const tapped = new Set();
  const page = await sweepPage({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true, deviceScaleFactor: 1 });
  for (const name of PAGES) {
    await visit(page, name);
    const fit = await page.evaluate(() => ({
      scroll: document.scrollingElement.scrollWidth,
      widths: __sweepWidgets().map((e) => ({ tag: e.localName, right: e.getBoundingClientRect().right })),
    }));
    assert.ok(fit.scroll <= 360, `${name}: page is ${fit.scroll} px wide at 360`);
    for (const w of fit.widths) assert.ok(w.right <= 360, `${name}: ${w.tag} ends at ${w.right} px`);
    const widgets = await listWidgets(page);
    // A panel with no-training (the appendix's) shows no button to tap: its tag is tapped on the next page.
    const tappable = widgets.filter((w) => !w.attributes.split(' ').includes('no-training'));
    for (const w of firstTimeWidgets(tappable, tapped)) {
      const button = page
        .locator(w.tag)
        .nth(widgets.filter((x) => x.tag === w.tag).indexOf(w))
        // Not a file button (data-opens-files): its tap opens the system's chooser, which renders
        // nothing (transformer-widgets.test.mjs checks it opens the chooser and what the files do).
        .locator('button:not([disabled]):not([data-export]):not([data-opens-files])')
        .first();
      if (!(await button.count())) continue;
      const before = await page.evaluate((i) => __sweepWidgets()[i].renderCount, w.index);
      await button.scrollIntoViewIfNeeded();
      await button.tap();
      await page.waitForFunction(([i, n]) => __sweepWidgets()[i].renderCount > n, [w.index, before]);
    }
    for (const w of widgets) {
      const nth = widgets.filter((x) => x.tag === w.tag).indexOf(w);
      await screenshot(page.locator(w.tag).nth(nth), shotName(name, `${w.key}-360`));
    }
    // The viewport only: a full-page picture of a long article costs more than the checks above
    // (LAYOUT_SCREENSHOTS=1 keeps full pages, tests/browser/layout.test.mjs).
    await screenshot(page, shotName(name, 'mobile-360'));
    assert.deepEqual(page.problems, [], name);
  }
  await page.close();
});

test('shareable state: restored from the URL hash, written back on change; a tampered hash is reported in the widget', async () => {
  for (const name of PAGES) {
    const page = await open(name);
    const widgets = (await listWidgets(page)).filter((w) => w.share && !WIDGET_STATES[w.tag].setup);
    if (!widgets.length) {
      await page.close();
      continue;
    }
    const hash =
      '#' +
      widgets
        .flatMap((w) =>
          Object.entries(WIDGET_STATES[w.tag].b).map(([k, v]) => `${encodeURIComponent(`${w.key}.${k}`)}=${encodeURIComponent(v)}`),
        )
        .join('&');
    // The same page loaded again with the link (a full load, the hash read at start-up as a reader
    // following it gets; the browser context and its HTTP cache kept, so it costs no new context).
    await page.evaluate((h) => history.replaceState(null, '', h), hash);
    await page.reload();
    assert.equal(await page.evaluate(() => location.hash), hash);
    await rendered(page);
    for (const w of widgets) {
      const shared = await page.evaluate((i) => __sweepWidgets()[i].sharedState, w.index);
      assert.deepEqual(shared, WIDGET_STATES[w.tag].b, `${name}: ${w.tag} restored from ${hash}`);
    }
    assert.deepEqual(page.problems, [], name);
    await page.close();
  }
  // Written back on a reader's change, every other hash entry kept.
  const article = PAGES.find((p) => p.includes('projections-matching'));
  const page = await open(article, {}, '#intro&value-swap.column-b=3');
  assert.equal(await page.evaluate(() => document.querySelector('#value-swap').getAttribute('column-b')), '3');
  await page.locator('#ablation').getByRole('button', { name: 'Swap coordinates of WQ' }).click();
  // Written once the reader pauses (the write is debounced; see the sweep test below).
  await page.waitForFunction(() => location.hash.includes('ablation.'));
  const hash = decodeURIComponent(await page.evaluate(() => location.hash));
  assert.match(hash, /^#intro&value-swap\.column-b=3&/);
  assert.match(hash, /ablation\.w-q=\[\[0,1\],\[1,0\]\]/);
  // A tampered link: the message names the attribute, nothing is injected.
  await page.goto(`${session.url}${article}#ablation.w-q=${encodeURIComponent('<img src=x onerror="window.__injected=1">')}`);
  await page.reload();
  const alert = page.locator('#ablation').getByRole('alert');
  await alert.waitFor();
  assert.match(await alert.textContent(), /attribute w-q is not valid JSON/);
  assert.equal(await page.evaluate(() => window.__injected ?? null), null);
  assert.deepEqual(page.problems, []);
});

test('a swept control writes the URL hash a few times, not once per step, and the hash ends with the final state; an over-long link is refused with a message', async () => {
  const article = PAGES.find((p) => p.includes('projections-matching'));
  const page = await open(article);
  const angle = await page.evaluate(() => {
    window.__hashWrites = 0;
    const original = history.replaceState.bind(history);
    history.replaceState = (...args) => {
      window.__hashWrites++;
      return original(...args);
    };
    const e = document.querySelector('#qk-basis');
    // 300 changes as fast as a held arrow key sends them (one per frame would be slower).
    for (let k = 1; k <= 300; k++) {
      e.angle = (k % 360) - 180;
      e.renderNow();
      e.emitChange();
    }
    return e.angle;
  });
  // Until the hash holds the final state (the debounced write has happened), however late a loaded machine runs it.
  await page.waitForFunction((a) => new RegExp(`qk-basis\\.angle=${a}(&|$)`).test(decodeURIComponent(location.hash)), angle);
  const result = await page.evaluate(() => ({
    writes: window.__hashWrites,
    hash: decodeURIComponent(location.hash),
    angle: document.querySelector('#qk-basis').angle,
  }));
  // One write after the sweep (the debounce delay is 200 ms; a loaded machine may split it in two or three).
  assert.ok(result.writes >= 1 && result.writes <= 3, `${result.writes} hash writes for 300 changes`);
  assert.match(result.hash, new RegExp(`qk-basis\\.angle=${result.angle}(&|$)`), result.hash);
  // A link longer than the limit is not read: the widget says so, in a short message.
  const long = `#qk-basis.angle=${'9'.repeat(20000)}`;
  await page.goto(`${session.url}${article}${long}`);
  await page.reload();
  const alert = page.locator('#qk-basis').getByRole('alert');
  await alert.waitFor();
  const text = await alert.textContent();
  assert.match(text, /links longer than 8,192 characters are not read/);
  assert.ok(text.length < 400, `message of ${text.length} characters`);
  assert.deepEqual(page.problems, []);
  await page.close();
});

/** Every tag the package registers: the defineElement('headlab-…') call of each widgets/*-define.ts. */
const DEFINED_TAGS = fs
  .readdirSync(path.join(root, 'widgets'))
  .filter((f) => f.endsWith('-define.ts'))
  .flatMap((f) =>
    [...fs.readFileSync(path.join(root, 'widgets', f), 'utf8').matchAll(/defineElement\('(headlab-[a-z0-9-]+)'/g)].map((m) => m[1]),
  )
  .sort();

/**
 * The phase in which each element `indices` (listWidgets) is driven when a page's elements are
 * driven side by side (hostile input): 0 for an element bound to no other (models,
 * the feature-recovery trainer, standalone widgets), 1 for a trainer bound to a model (it hands
 * the model a new one), 2 for a figure bound to a model or source. An element others read is done
 * before its readers, so no figure is checked while the element it reads is itself being driven.
 */
function phasesOf(page, indices) {
  return page.evaluate(
    ([indices, trainers]) =>
      indices.map((i) => {
        const e = __sweepWidgets()[i];
        const observes = (a) => (e.constructor.observedAttributes ?? []).includes(a);
        return !observes('model') && !observes('source') ? 0 : trainers.includes(e.localName) ? 1 : 2;
      }),
    [indices, Object.keys(TRAIN_BUTTONS)],
  );
}

/**
 * Removes the widget numbered `index` (listWidgets) and re-inserts it three times, then gives it
 * state b and state a: { renders, alert } after the cycles.
 */
function reattached(page, index, a, b) {
  return page.evaluate(
    async ([i, sa, sb]) => {
      const e = __sweepWidgets()[i];
      const frame = () => new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));
      const parent = e.parentNode;
      const next = e.nextSibling;
      for (let k = 0; k < 3; k++) {
        e.remove();
        if (k % 2) await frame(); // removed for a frame (a tab switched away) or re-inserted in the same task (a framework's move)
        parent.insertBefore(e, next);
        await frame();
      }
      const before = e.renderCount;
      // An element with nothing to share (the transformer model: its files are the author's) is asked to render instead.
      const nothingShared = !Object.keys(sa).length && !Object.keys(sb).length;
      e.sharedState = sb;
      if (nothingShared) e.requestRender();
      await frame();
      e.sharedState = sa;
      if (nothingShared) e.requestRender();
      await frame();
      const alert = e.shadowRoot.querySelector('.alert');
      return { renders: e.renderCount - before, alert: alert.hidden ? '' : alert.textContent };
    },
    [index, a, b],
  );
}

/** Re-attaches between the two listener counts of an element: a listener left behind per re-attach shows as 7 more. */
const LISTENER_REATTACHES = 8;

/**
 * Before any script of the page runs: every EventTarget given a listener (and both ports of every
 * MessageChannel, whose handler is set as `onmessage`) is remembered by a weak reference, so that
 * pageListeners() reaches the targets outside the document — workers, ports, AbortSignals,
 * removed nodes — for as long as something keeps them alive.
 */
async function trackListenedTargets(page) {
  await page.addInitScript(() => {
    const targets = new Set();
    const seen = new WeakSet();
    const note = (t) => {
      if (!seen.has(t)) {
        seen.add(t);
        targets.add(new WeakRef(t));
      }
    };
    window.__listenedTargets = () => {
      const live = [];
      for (const r of targets) {
        const t = r.deref();
        if (t) live.push(t);
        else targets.delete(r);
      }
      return live;
    };
    const add = EventTarget.prototype.addEventListener;
    EventTarget.prototype.addEventListener = function (...args) {
      note(this);
      return add.apply(this, args);
    };
    const Channel = window.MessageChannel;
    window.MessageChannel = class extends Channel {
      constructor() {
        super();
        note(this.port1);
        note(this.port2);
      }
    };
  });
}

/**
 * The page's event listeners, by CDP after a full garbage collection: DOMDebugger.getEventListeners
 * over the document's nodes (shadow trees included) and the window, and over every other live target
 * the page listened on (trackListenedTargets: a worker's `error` listeners and its port's handler,
 * which a figure removed mid-analysis used to keep alive, are on no node). `byTarget` counts them by
 * "<target class> <types>", to name what grew.
 */
async function pageListeners(cdp) {
  await cdp.send('HeapProfiler.collectGarbage');
  const group = { objectGroup: 'listener-count' };
  try {
    const doc = await cdp.send('Runtime.evaluate', { expression: 'document', ...group });
    const inDocument = (await cdp.send('DOMDebugger.getEventListeners', { objectId: doc.result.objectId, depth: -1, pierce: true }))
      .listeners.length;
    const win = await cdp.send('Runtime.evaluate', { expression: 'window', ...group });
    const onWindow = (await cdp.send('DOMDebugger.getEventListeners', { objectId: win.result.objectId })).listeners.length;
    const others = await cdp.send('Runtime.evaluate', {
      expression:
        '__listenedTargets().filter((t) => t !== window && !(t instanceof Node && t.getRootNode({ composed: true }) === document))',
      ...group,
    });
    const byTarget = {};
    let elsewhere = 0;
    for (const p of (await cdp.send('Runtime.getProperties', { objectId: others.result.objectId, ownProperties: true })).result) {
      if (!/^\d+$/.test(p.name)) continue;
      const { listeners } = await cdp.send('DOMDebugger.getEventListeners', { objectId: p.value.objectId });
      if (!listeners.length) continue;
      elsewhere += listeners.length;
      const kind = `${p.value.className} ${listeners
        .map((l) => l.type)
        .sort()
        .join(',')}`;
      byTarget[kind] = (byTarget[kind] ?? 0) + 1;
    }
    return { total: inDocument + onWindow + elsewhere, inDocument, onWindow, elsewhere, byTarget };
  } finally {
    // The remote objects above would otherwise keep the targets they name alive for the next count.
    await cdp.send('Runtime.releaseObjectGroup', group);
  }
}

/**
 * Removes and re-inserts each element `picks` find `n` times (every other time in the same task, as
 * reattached does), one element after another, then waits until nothing is pending or busy (frames()).
 */
async function reattachTimes(page, picks, n) {
  await page.evaluate(
    async ([picks, n]) => {
      const frame = () => new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));
      const widgets = __sweepWidgets();
      const values = document.querySelectorAll('headlab-value');
      for (let k = 0; k < n; k++) {
        for (const pick of picks) {
          const e = pick.value ? values[pick.index] : widgets[pick.index];
          const parent = e.parentNode,
            next = e.nextSibling;
          e.remove();
          if (k % 2) await frame();
          parent.insertBefore(e, next);
          await frame();
        }
      }
    },
    [picks, n],
  );
  await frames(page);
}

/**
 * Asserts that the page's listeners (pageListeners) after LISTENER_REATTACHES re-attaches of each
 * element `picks` find are no more than after one: every listener a connection adds is removed on
 * disconnect, and a worker ended on disconnect, its port and its listeners are released (a leak
 * grows the count with each cycle, whichever element leaks; `byTarget` names what grew). Returns
 * the two counts; the log line shows any decrease.
 */
async function listenersKept(page, cdp, picks, what) {
  // Each count is taken once every figure has drawn its answer (drawn(): nothing busy, then frames).
  // The count may fall: on own-model.html, in the whole suite's run, the ablation figure counts 186
  // after one re-attach and 184 after eight (184 and 184 when this file runs alone); a leak would rise.
  await reattachTimes(page, picks, 1);
  await drawn(page);
  const one = await pageListeners(cdp);
  await reattachTimes(page, picks, LISTENER_REATTACHES - 1);
  await drawn(page);
  const many = await pageListeners(cdp);
  console.log(
    `# listeners ${what}: ${one.total} after 1 re-attach, ${many.total} after ${LISTENER_REATTACHES} (document ${one.inDocument} → ${many.inDocument}, window ${one.onWindow} → ${many.onWindow}, elsewhere ${one.elsewhere} → ${many.elsewhere})`,
  );
  const grew = Object.entries(many.byTarget)
    .filter(([k, n]) => n !== (one.byTarget[k] ?? 0))
    .map(([k, n]) => `${k}: ${one.byTarget[k] ?? 0} → ${n}`);
  assert.ok(
    many.total <= one.total,
    `${what}: the page's listeners grew from ${one.total} after 1 re-attach to ${many.total} after ${LISTENER_REATTACHES} (document ${one.inDocument} → ${many.inDocument}, window ${one.onWindow} → ${many.onWindow}; targets elsewhere: ${grew.join('; ')})`,
  );
  return { one: one.total, many: many.total };
}

test("re-attaching: every element the package defines (on the pages, or added to one as an author would) removed and re-inserted three times renders again, takes a new state, shows no error; 8 re-attaches of each add no listener to the page's", async () => {
  const covered = new Set();
  // The listener count (two full collections and a CDP walk of every target) is taken once per
  // page, over one element of each kind new on it re-attached in turn: a tag with the same attribute
  // names (a figure bound to a model element listens as its kind does, wherever it stands), and a
  // prose value per kind of source. A leak in any of them grows the page's count. Every instance is
  // still re-attached and checked for its render, state and alert.
  const listenerKinds = new Set();
  const check = async (page, w, where, picks) => {
    const { a, b } = WIDGET_STATES[w.tag];
    const r = await reattached(page, w.index, a, b);
    const what = `${where}: ${w.tag} (#${w.index})`;
    assert.equal(r.alert, '', what);
    assert.ok(r.renders >= 1, `${what}: no render after re-attaching`);
    covered.add(w.tag);
    const kind = `${w.tag} ${w.attributes}`;
    if (listenerKinds.has(kind)) return;
    listenerKinds.add(kind);
    picks.push({ index: w.index, kind });
  };
  const countListeners = async (page, cdp, picks, where) => {
    if (picks.length) await listenersKept(page, cdp, picks, `${where}: ${picks.map((p) => p.kind).join('; ')}`);
  };
  for (const name of PAGES) {
    const page = await sweepPage();
    await trackListenedTargets(page);
    await page.goto(`${session.url}${name}`);
    await rendered(page);
    const cdp = await page.context().newCDPSession(page);
    const picks = [];
    for (const w of await listWidgets(page)) await check(page, w, name, picks);
    // The last states set above have drawn (a figure waiting on its worker shows its previous
    // numbers until the answer comes, and its values follow then): `before` below is settled.
    await drawn(page);
    // The prose values (<headlab-value>): after the same cycles each still follows its source —
    // a value the source reports after the re-insertions is shown, and the source's own after that.
    const values = await page.evaluate(async () => {
      const frame = () => new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));
      const out = [];
      for (const v of document.querySelectorAll('headlab-value')) {
        const before = { text: v.textContent, state: v.dataset.state };
        const parent = v.parentNode,
          next = v.nextSibling;
        for (let k = 0; k < 3; k++) {
          v.remove();
          if (k % 2) await frame();
          parent.insertBefore(v, next);
          await frame();
        }
        const source = document.getElementById(v.source);
        const again = { text: v.textContent, state: v.dataset.state };
        source.boundValue = () => ({ value: 123456789, kind: 'count' });
        source.dispatchEvent(new Event('headlab-render', { bubbles: true }));
        const followed = { text: v.textContent, state: v.dataset.state };
        delete source.boundValue;
        source.dispatchEvent(new Event('headlab-render', { bubbles: true }));
        out.push({
          source: v.source,
          sourceTag: source.localName,
          name: v.name,
          before,
          again,
          followed,
          restored: { text: v.textContent, state: v.dataset.state },
        });
      }
      return out;
    });
    for (const [index, v] of values.entries()) {
      const what = `${name}: <headlab-value source="${v.source}" name="${v.name}">`;
      assert.deepEqual(v.again, v.before, what);
      assert.equal(v.followed.state, 'bound', what);
      assert.notEqual(v.followed.text, v.before.text, `${what}: the source's new value not shown`);
      assert.deepEqual(v.restored, v.before, what);
      covered.add('headlab-value');
      const kind = `headlab-value of ${v.sourceTag}`;
      if (listenerKinds.has(kind)) continue;
      listenerKinds.add(kind);
      picks.push({ value: true, index, kind });
    }
    await countListeners(page, cdp, picks, name);
    await cdp.detach();
    assert.deepEqual(page.problems, [], name);
    await page.close();
  }
  // Elements on no page of the site (the basis rotation left the first article): added to one.
  const absent = DEFINED_TAGS.filter((t) => !covered.has(t));
  if (absent.length) {
    const page = await sweepPage();
    await trackListenedTargets(page);
    await page.goto(`${session.url}${PAGES[0]}`);
    await rendered(page);
    const cdp = await page.context().newCDPSession(page);
    await addElements(page, absent);
    const picks = [];
    for (const w of (await listWidgets(page)).filter((x) => absent.includes(x.tag))) await check(page, w, `${PAGES[0]} (added)`, picks);
    await countListeners(page, cdp, picks, `${PAGES[0]} (added)`);
    await cdp.detach();
    assert.deepEqual(page.problems, [], PAGES[0]);
    await page.close();
  }
  assert.deepEqual([...covered].sort(), DEFINED_TAGS, "re-attached elements against the package's");
  console.log(`# listeners counted for ${listenerKinds.size} kinds of element`);
});

/** Downloads Chromium delivers from one document (the exports test opens the page afresh after these). */
const DOWNLOADS_PER_DOCUMENT = 10;

test('exports of every element: SVG with <title> and the summary as <desc>, PNG, JSON; the download buttons work', async () => {
  const page = await sweepPage();
  for (const name of PAGES) {
    await visit(page, name);
    const exports = await page.evaluate(async () => {
      const out = [];
      for (const e of __sweepWidgets()) {
        let json;
        try {
          json = JSON.parse(e.exportJson());
        } catch (err) {
          json = { error: err.message };
        }
        const figures = [];
        for (const f of e.figures()) {
          const svg = e.exportSvg(f.name);
          const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
          const png = new Uint8Array(await (await e.exportPng(f.name)).arrayBuffer());
          figures.push({
            name: f.name,
            parseError: doc.querySelector('parsererror') !== null,
            title: doc.querySelector('title')?.textContent,
            desc: doc.querySelector('desc')?.textContent,
            style: /style=/.test(svg),
            texts: doc.querySelectorAll('text').length,
            png: String.fromCharCode(...png.subarray(1, 4)),
            pngBytes: png.length,
          });
        }
        // The state as JSON, typed arrays as arrays (as exportJson writes them).
        const state = JSON.parse(JSON.stringify(e.state, (_k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)));
        out.push({ tag: e.localName, json, state, summary: e.summary, figures });
      }
      return out;
    });
    for (const x of exports) {
      // The trainer opens on its settings' finished run: its JSON is that run's results.json.
      if (x.tag === 'headlab-feature-recovery') {
        assert.equal(x.json.error, undefined, `${name}: ${x.tag} JSON`);
        assert.deepEqual(x.json, x.state.results, `${name}: ${x.tag} JSON is its run's results.json`);
      } else assert.deepEqual(x.json, x.state, `${name}: ${x.tag} JSON is its state`);
      for (const f of x.figures) {
        assert.equal(f.parseError, false, `${x.tag} ${f.name}`);
        assert.ok(f.title.length > 0 && f.texts > 0, `${x.tag} ${f.name}`);
        assert.equal(f.desc, x.summary);
        assert.equal(f.style, false);
        assert.equal(f.png, 'PNG');
        assert.ok(f.pngBytes > 1000);
      }
    }
    // One real download per kind of element on the page, by a click on its first SVG button.
    // Chromium delivers at most 10 downloads from one document (the 11th click on own-model.html
    // downloaded nothing, while the same click in a fresh page did): the page is opened afresh
    // after every 10.
    const clicked = new Set();
    let downloads = 0;
    for (const [i, x] of exports.entries()) {
      if (!x.figures.length || clicked.has(x.tag)) continue;
      clicked.add(x.tag);
      if (downloads === DOWNLOADS_PER_DOCUMENT) {
        await visit(page, name);
        downloads = 0;
      }
      downloads++;
      const host = page.locator(x.tag).nth(exports.slice(0, i).filter((y) => y.tag === x.tag).length);
      const button = host.locator('button[data-export$=".svg"]').first();
      if (!(await button.count())) continue;
      // The buttons sit in the widget's one export menu: open it first.
      const menu = host.locator('.export-menu > summary').first();
      if (await menu.count()) await menu.click();
      const [d] = await Promise.all([page.waitForEvent('download'), button.click()]);
      assert.match(d.suggestedFilename(), /\.svg$/);
      assert.match(fs.readFileSync(await d.path(), 'utf8'), /^<\?xml/);
    }
    assert.deepEqual(page.problems, [], name);
  }
  await page.close();
});

test('bad input: hostile values on every observed attribute and shared-link entry of every element the package defines (on the first page that has it, or added to one) give a message or a working widget, never injected markup, a blank widget, a getter that throws or a page error; rapid clicks', async () => {
  const covered = new Set(['headlab-value']);
  // The pages, then the first page again with the elements no page has (added as an author would).
  for (const [name, added] of [...PAGES.map((p) => [p, null]), [PAGES[0], 'absent']]) {
    const absent = added ? DEFINED_TAGS.filter((t) => !covered.has(t)) : [];
    if (added && !absent.length) continue;
    const page = await open(name);
    if (added) await addElements(page, absent);
    const widgets = firstTimeWidgets(await listWidgets(page), covered);
    const report = await page.evaluate(
      async ([hostile, indices, phases]) => {
        const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
        // A frame, and more while the element still has its render ahead (a frame's renders past its
        // budget wait for the next frame, which side-by-side elements reach): its render has run.
        const drawn = async (e) => {
          await frame();
          while (e.updatePending) await frame();
        };
        const all = __sweepWidgets();
        const problems = [];
        let alerts = 0;
        // Page errors inside the loops (an observer's or a timer's callback), named by the values in
        // flight when they came (one per element driven at that moment, see the phases below).
        const doing = new Map();
        const uncaught = (err) =>
          problems.push(`${[...doing.values()].join(' | ')}: uncaught ${String(err?.message ?? err).slice(0, 120)}`);
        const onError = (ev) => uncaught(ev.error ?? ev.message);
        const onRejection = (ev) => uncaught(ev.reason);
        window.addEventListener('error', onError);
        window.addEventListener('unhandledrejection', onRejection);
        // Reading an element never throws (docs/embedding.md, "Reading an element"): state (null while
        // it cannot be computed), error (the alert's message when one shows), summary, busy, figureData
        // and the element's other bookkeeping. Every other getter of its class is read too: one that
        // parses attributes (`angle`, the trainer's `settings`, value swap's `columnA`) may throw only
        // the WidgetInputError that says what is wrong, never anything else.
        const READING = new Set([
          'state',
          'error',
          'summary',
          'busy',
          'figureData',
          'sharedState',
          'shareKey',
          'updatePending',
          'renderCount',
        ]);
        const getters = (e) => {
          const names = new Set();
          for (let p = Object.getPrototypeOf(e); p && p !== HTMLElement.prototype; p = Object.getPrototypeOf(p)) {
            for (const [k, d] of Object.entries(Object.getOwnPropertyDescriptors(p))) if (d.get) names.add(k);
          }
          return [...names];
        };
        const read = (e, what) => {
          const got = {};
          for (const p of getters(e)) {
            try {
              got[p] = e[p];
            } catch (err) {
              if (READING.has(p) || err?.name !== 'WidgetInputError')
                problems.push(`${e.localName} ${what}: .${p} threw ${String(err?.name)} ${String(err?.message ?? err).slice(0, 80)}`);
            }
          }
          const alert = e.shadowRoot.querySelector('.alert');
          if (!alert.hidden && got.error !== alert.textContent)
            problems.push(`${e.localName} ${what}: .error is ${JSON.stringify(got.error)?.slice(0, 60)}, not the alert's message`);
          if (typeof got.error === 'string' && got.error.length > 400)
            problems.push(`${e.localName} ${what}: .error of ${got.error.length} characters`);
          if (got.state === null && !got.error) problems.push(`${e.localName} ${what}: .state is null and .error says nothing`);
          for (const p of ['summary', 'busy']) if (!(p in got)) problems.push(`${e.localName} ${what}: no .${p}`);
        };
        // Each element runs its own sequence (every observed attribute through every hostile value,
        // a render each, then its shared-link entries, then rapid clicks) exactly as it would alone;
        // the elements of a phase (phasesOf: an element others read goes before its readers, so a
        // figure never meets its hostile value while its model is broken) run theirs side by side,
        // so a frame advances every one of them instead of one: the frames, not the renders, were
        // the sweep's time.
        for (const phase of [0, 1, 2]) await Promise.all(indices.filter((i, k) => phases[k] === phase).map((i) => sweepOne(all[i])));
        doing.clear();
        async function sweepOne(e) {
          const attrs = e.constructor.observedAttributes ?? [];
          for (const a of attrs) {
            const original = e.getAttribute(a);
            for (const v of hostile) {
              doing.set(e, `${e.localName} ${a}=${v.slice(0, 20)}`);
              e.setAttribute(a, v);
              read(e, `${a}=${v.slice(0, 20)} (before its render)`);
              // drawn(): the render this value requested has run (one frame, more while it is still pending).
              await drawn(e);
              read(e, `${a}=${v.slice(0, 20)}`);
              const alert = e.shadowRoot.querySelector('.alert');
              const body = e.shadowRoot.querySelector('.body');
              const showsAlert = !alert.hidden && alert.textContent.length > 0;
              if (showsAlert) alerts++;
              if (!showsAlert && (body.hidden || body.textContent.trim() === ''))
                problems.push(`${e.localName} ${a}=${v.slice(0, 20)}: blank`);
              if (e.shadowRoot.querySelector('img, script, iframe, object')) problems.push(`${e.localName} ${a}: injected element`);
              if (showsAlert && alert.children.length) problems.push(`${e.localName} ${a}: markup in the alert`);
            }
            if (original === null) e.removeAttribute(a);
            else e.setAttribute(a, original);
            await drawn(e);
            await drawn(e);
            if (!e.shadowRoot.querySelector('.alert').hidden)
              problems.push(`${e.localName} ${a}: does not recover after the attribute is restored`);
          }
          // The same values arriving by a shared link: the URL hash's entry for each shared attribute,
          // read as on `hashchange` (the hash set without an event, then the event sent at once, so
          // the getters are read between the hash's write of the attribute and the render). A link
          // that names the element scrolls it into view, so what starts there (the trainer's
          // autostart) runs with the linked values: any page error fails the test.
          const saved = e.sharedState;
          const names = e.constructor.sharedAttributes ?? [];
          for (const a of names) {
            for (const v of hostile) {
              doing.set(e, `${e.localName} hash ${a}=${v.slice(0, 20)}`);
              history.replaceState(history.state, '', `#${encodeURIComponent(`${e.shareKey}.${a}`)}=${encodeURIComponent(v)}`);
              window.dispatchEvent(new HashChangeEvent('hashchange'));
              read(e, `hash ${a}=${v.slice(0, 20)} (before its render)`);
              await drawn(e);
              read(e, `hash ${a}=${v.slice(0, 20)}`);
              const alert = e.shadowRoot.querySelector('.alert');
              if (e.state === null && (alert.hidden || !alert.textContent))
                problems.push(`${e.localName} hash ${a}=${v.slice(0, 20)}: state is null and no message shows`);
              if (e.shadowRoot.querySelector('img, script, iframe, object')) problems.push(`${e.localName} hash ${a}: injected element`);
            }
          }
          if (names.length) {
            doing.set(e, `${e.localName}: restoring after its hostile links`);
            history.replaceState(history.state, '', location.pathname);
            window.dispatchEvent(new HashChangeEvent('hashchange'));
            e.sharedState = saved;
            await drawn(e);
            await drawn(e);
            if (!e.shadowRoot.querySelector('.alert').hidden) problems.push(`${e.localName}: does not recover after its hostile links`);
          }
          doing.set(e, `${e.localName}: rapid clicks`);
          // Rapid repeated interactions: every button 25 times, as fast as the page lets a script click.
          for (let k = 0; k < 25; k++) for (const b of e.shadowRoot.querySelectorAll('button:not([data-export])')) b.click();
          await drawn(e);
          await drawn(e);
          const alert = e.shadowRoot.querySelector('.alert');
          const body = e.shadowRoot.querySelector('.body');
          if (alert.hidden && body.hidden) problems.push(`${e.localName}: blank after rapid clicks`);
        }
        window.removeEventListener('error', onError);
        window.removeEventListener('unhandledrejection', onRejection);
        return { problems, alerts, injected: window.__injected ?? null, polluted: {}.polluted ?? null };
      },
      [
        HOSTILE_VALUES,
        widgets.map((w) => w.index),
        await phasesOf(
          page,
          widgets.map((w) => w.index),
        ),
      ],
    );
    assert.deepEqual(report.problems, [], name);
    assert.equal(report.injected, null);
    assert.equal(report.polluted, null);
    if (widgets.length) assert.ok(report.alerts > 0, `${name}: no hostile value was reported`);
    // Still responsive: a fresh evaluate answers and every element renders again.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(r)));
    assert.deepEqual(
      page.problems.filter((p) => !/download/i.test(p)),
      [],
      name,
    );
    await page.close();
  }
  assert.deepEqual([...covered].sort(), DEFINED_TAGS, "elements swept against the package's");
});

test('memory: 500 updates of each element (on the first page that has it) leave the WASM heap in use and the embind handle count flat; removal releases the worker', async () => {
  // Heap in use (dlmalloc's uordblks: bytes in allocated chunks) after the 200 warm-up updates
  // came back to the byte after 3,000 more on every element (measured: a change of 0 B each), so
  // the slack only covers an allocation the allocator might keep for reuse; a per-update leak
  // grows it linearly: the smallest one (malloc(8), a 16-byte chunk with dlmalloc's header;
  // measured +16 B per update on a scratch variant leaking it) gives 500 × 16 = 8,000 B after
  // 500 updates, 7.8 times the slack, and one such leak every 4th update still 2,000 B. The
  // embind handle count is held exactly: one handle kept over any number of updates fails.
  const UPDATES = 500;
  const HEAP_SLACK_BYTES = 1024;
  const covered = new Set();
  const page = await sweepPage();
  for (const name of PAGES) {
    await visit(page, name);
    const widgets = await listWidgets(page);
    if (!widgets.length) continue;
    if (widgets.some((w) => WIDGET_STATES[w.tag].setup === 'trained')) {
      await page.evaluate(() => {
        const fr = document.querySelector('headlab-feature-recovery');
        fr.steps = 100;
        fr.pace = 'fast';
        fr.evalSize = 64;
        fr.train();
      });
      await page.waitForFunction(() => document.querySelector('headlab-feature-recovery').trainingStatus === 'done');
      // The trainer's worker alone: it keeps the run and answers the interventions figure too.
      await page.waitForFunction(() => document.querySelector('headlab-interventions').state.mse !== null);
      assert.equal(page.workers().length, 1);
    }
    const bundle = new URL('headlab/headlab.js', session.url).href;
    for (const w of firstTimeWidgets(widgets, covered)) {
      const { a, b } = WIDGET_STATES[w.tag];
      const r = await page.evaluate(
        async ([i, sa, sb, n, url]) => {
          const e = __sweepWidgets()[i];
          // The module the element computes with: headlab_max_digit for the max-digit widgets,
          // headlab_feature_recovery for the feature-recovery figures, headlab_transformer for the
          // transformer figures, headlab_core for the others. The interventions figure asks its
          // source's worker, whose heap tests/wasm/diagnostics.test.mjs holds flat over 600 calls of
          // that task; here its main-thread side (renders, handles) is what is measured.
          // The transformer figures compute in their source's worker: their page side is measured with headlab_core.
          const core = e.maxDigit ?? e.featureRecovery ?? (await (await import(url)).getCore());
          // An element with nothing to share (the transformer model: its files are the author's) is asked to render instead.
          const nothingShared = !Object.keys(sa).length && !Object.keys(sb).length;
          const step = (k) => {
            e.sharedState = k % 2 ? sb : sa;
            if (nothingShared) e.requestRender();
            e.renderNow();
            void e.state;
          };
          for (let k = 0; k < 200; k++) step(k); // warm-up: caches and allocator bins filled
          await new Promise((r) => requestAnimationFrame(r));
          const before = core.memoryDiagnostics();
          const rendersBefore = e.renderCount;
          const t0 = performance.now();
          for (let k = 0; k < n; k++) {
            step(k);
            if (k % 250 === 249) await new Promise((r) => requestAnimationFrame(r));
          }
          const ms = performance.now() - t0;
          const afterDiag = core.memoryDiagnostics();
          const alert = e.shadowRoot.querySelector('.alert');
          return { before, after: afterDiag, renders: e.renderCount - rendersBefore, ms, alert: alert.hidden ? '' : alert.textContent };
        },
        [w.index, a, b, UPDATES, bundle],
      );
      const what = `${name}: ${w.tag}`;
      assert.equal(r.alert, '', what);
      assert.ok(r.renders >= UPDATES, `${what}: ${r.renders} renders`);
      assert.equal(
        r.after.live_handles,
        r.before.live_handles,
        `${what}: embind handles ${r.before.live_handles} → ${r.after.live_handles}`,
      );
      assert.ok(
        r.after.heap_bytes_in_use - r.before.heap_bytes_in_use <= HEAP_SLACK_BYTES,
        `${what}: heap in use ${r.before.heap_bytes_in_use} → ${r.after.heap_bytes_in_use}`,
      );
      console.log(
        `# memory ${what}: ${UPDATES} updates in ${Math.round(r.ms)} ms; heap ${r.before.heap_bytes_in_use} → ${r.after.heap_bytes_in_use} B; handles ${r.before.live_handles} → ${r.after.live_handles}`,
      );
    }
    // Removing every widget: every worker it made is terminated and closes (workersEnded waits
    // for each one's 'close', however long a loaded machine takes), nothing is left rendering, the
    // heap returns to at most where it was.
    const baseline = await page.evaluate(async (url) => (await (await import(url)).getCore()).memoryDiagnostics(), bundle);
    const after = await page.evaluate(async (url) => {
      const core = await (await import(url)).getCore();
      // Removal is synchronous (disconnectedCallback cancels the pending renders and ends the workers).
      for (const e of __sweepWidgets()) e.remove();
      return core.memoryDiagnostics();
    }, bundle);
    await workersEnded(page, name);
    assert.equal(page.workers().length, 0, `${name}: a worker outlived its widget`);
    assert.ok(
      after.heap_bytes_in_use <= baseline.heap_bytes_in_use && after.live_handles <= baseline.live_handles,
      `${name}: memory kept after removal`,
    );
    assert.deepEqual(page.problems, [], name);
  }
  await page.close();
});

/** Rows of the over-long author data below (the audit's figure): about 3,000,000 characters of JSON. */
const HOSTILE_ROWS = 500000;

test('hostile input costs no long task: a 500,000-row attribute or JSON content is refused by its length before it is parsed; a hostile link at load is refused by its value', async () => {
  const article = PAGES.find((p) => p.includes('projections-matching'));
  // Each on a fresh page: what a page does first (the first number formatted, the first parse) is what cost.
  const cases = [
    ['basis-rotation', 'x'],
    ['basis-rotation', 'w-q'],
    ['value-swap', 'values'],
    ['value-swap', 'weights'],
    ['value-swap', 'records'],
    ['value-swap', 'content'],
  ];
  for (const [name, attr] of cases) {
    const page = await open(article);
    await page.evaluate(
      async ([name, attr, n]) => {
        if (!document.querySelector(`headlab-${name}`)) {
          await import(new URL(`/headlab/${name}.js`, location.href).href);
          document.body.append(document.createElement(`headlab-${name}`));
        }
        // Built before the trace: the author's page holds it already.
        window.__hostile =
          attr === 'weights'
            ? Array(n).fill('0').join(' ')
            : attr === 'records'
              ? JSON.stringify(Array(n).fill('r'))
              : attr === 'content'
                ? JSON.stringify({ weights: [0.5, 0.5], values: Array(n).fill([1, 2]) })
                : `[${Array(n).fill('[1,2]').join(',')}]`;
      },
      [name, attr, HOSTILE_ROWS],
    );
    await rendered(page);
    const t = await traced(session.browser, page, async () => {
      await page.evaluate(
        ([name, attr]) => {
          const e = document.querySelector(`headlab-${name}`);
          if (attr !== 'content') {
            e.setAttribute(attr, window.__hostile);
            return;
          }
          const script = document.createElement('script');
          script.type = 'application/json';
          script.textContent = window.__hostile;
          e.replaceChildren(script);
          e.removeAttribute('weights');
          e.removeAttribute('values');
          e.setAttribute('column-b', '1'); // a render, which reads the new content
        },
        [name, attr],
      );
      await page.waitForFunction((name) => !document.querySelector(`headlab-${name}`).shadowRoot.querySelector('.alert').hidden, name);
    });
    const message = await page.evaluate((name) => document.querySelector(`headlab-${name}`).error, name);
    const what = `${name} ${attr} of ${HOSTILE_ROWS.toLocaleString('en-US')} rows`;
    console.log(
      `# longest task, ${what}: ${t.ms.toFixed(1)} ms computation (task ${t.taskMs.toFixed(1)} ms CPU, ${t.wallMs.toFixed(1)} ms wall); ${t.what}`,
    );
    assert.match(message, /characters long; the limit is 200,000$/, what);
    assert.ok(t.ms < LONG_TASK_LIMIT_MS, `${what}: a task of ${t.ms.toFixed(1)} ms (${t.what})`);
    assert.deepEqual(page.problems, [], what);
    await page.close();
  }
  // A hostile link at load: markup in an entry the element does not share (step), and in one it
  // does (snapshot), long enough to be excerpted in the message.
  const fr = PAGES.find((p) => p.includes('feature-recovery'));
  const markup = '<svg><foreignObject><div style=color:red onclick=window.__injected=1>hostile markup</div></foreignObject></svg>';
  for (const entry of ['replay.step', 'replay.snapshot']) {
    const page = await sweepPage();
    const t = await traced(session.browser, page, async () => {
      await page.goto(`${session.url}${fr}#${entry}=${encodeURIComponent(markup)}`);
      await rendered(page);
      // The shared entry is applied after the first render: wait for its message (a state, not a time).
      if (entry === 'replay.snapshot') await page.waitForFunction(() => document.querySelector('#replay').error !== null);
    });
    const state = await page.evaluate(() => {
      const e = document.querySelector('#replay');
      return { error: e.error, state: e.state, injected: window.__injected ?? null };
    });
    console.log(
      `# longest task, ${fr}#${entry}=<markup>: ${t.ms.toFixed(1)} ms computation (task ${t.taskMs.toFixed(1)} ms CPU, ${t.wallMs.toFixed(1)} ms wall); ${t.what}`,
    );
    if (entry === 'replay.snapshot') {
      assert.match(
        state.error,
        /^attribute snapshot="<svg><foreignObject><div style=color:red…" \(\d+ characters\) is not a finite number$/,
      );
      assert.equal(state.state, null);
    } else {
      assert.equal(state.error, null);
    }
    assert.equal(state.injected, null);
    assert.ok(t.ms < LONG_TASK_LIMIT_MS, `${entry}: a task of ${t.ms.toFixed(1)} ms (${t.what})`);
    assert.deepEqual(page.problems, [], entry);
    await page.close();
  }
});
