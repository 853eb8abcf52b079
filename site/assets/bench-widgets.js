// The widget-update benchmark: each headlab-* element driven through its natural input (a
// slider step, a patch, an ablation toggle, a drag, a scrub, a typed field), many samples each.
// Shared by the site's benchmark page (assets/bench.js, in the reader's browser) and the
// Chromium driver (bench/widgets.bench.mjs), which imports it into each article page.
//
// What one sample measures (the method of bench/canvas.bench.mjs, through the control instead
// of the attribute): inside an animation-frame callback, where an input event would be handled,
//   script = performance.now() around [the control's event dispatched + host.renderNow()],
// i.e. the widget's handler, the core calls, building the scene and writing the DOM, plus
// whatever runs synchronously with them (bound <headlab-value>s, linked highlighting, the URL
// hash under share-state). renderNow() runs the render the input scheduled for the next frame
// now, so it is timed rather than waited for. Then
//   layout = the same plus a forced style and layout of the page (document.body.offsetHeight),
// the rest of the frame's main-thread work that the update causes, before paint. One sample per
// frame, so the browser paints and collects garbage between samples as it would for a reader.
// Target: script time under 4 ms at the 95th percentile (a frame is 16.7 ms at 60 Hz).
// Plain JavaScript, no import: it runs as served, under the strict CSP.

/** Script-time target per update, ms (95th percentile). */
export const UPDATE_TARGET_MS = 4;

const fire = (target, type) => target.dispatchEvent(new Event(type, { bubbles: true }));
const q = (host, selector) => {
  const found = host.shadowRoot?.querySelector(selector);
  if (!found) throw new Error(`${host.localName}#${host.id}: no ${selector} in its shadow root`);
  return found;
};
const qa = (host, selector) => [...host.shadowRoot.querySelectorAll(selector)];
/** A range input moved one step (what a drag of the thumb or an arrow key does). */
function slide(input, i) {
  const min = Number(input.min),
    max = Number(input.max);
  const step = input.step === 'any' ? (max - min) / 100 : Number(input.step || 1);
  const n = Math.max(1, Math.round((max - min) / step));
  const k = i % (2 * n); // there and back again
  input.value = String(min + (k <= n ? k : 2 * n - k) * step);
  fire(input, 'input');
}
/** A <select> changed to its next option. */
function choose(select, i) {
  select.selectedIndex = (i + 1) % select.options.length;
  fire(select, 'change');
}
/** A scenario named `input`: each sample moves the <select> `selector` to its next option. */
const selectScenario = (input, selector = 'select') => ({
  input,
  start: (h) => {
    const s = q(h, selector);
    return (i) => choose(s, i);
  },
});
/** A scenario named `input`: each sample clicks the next of the buttons `selector`, in turn. */
const buttonsScenario = (input, selector) => ({
  input,
  start: (h) => {
    const b = qa(h, selector);
    return (i) => b[i % b.length].click();
  },
});
/** A typed field committed (Enter or leaving it: the change event; the input event debounces). */
function type(input, text) {
  input.value = text;
  fire(input, 'input');
  fire(input, 'change');
}
/** A scenario named `input`: each sample types text(i, host) into the field `selector` and commits it. */
const typedScenario = (input, selector, text) => ({
  input,
  start: (h) => {
    const f = q(h, selector);
    return (i) => type(f, text(i, h));
  },
});
/** A scenario named `input`: each sample presses the key key(i) on the element `selector` (keydown). */
const keyScenario = (input, selector, key) => ({
  input,
  start: (h) => {
    const f = q(h, selector);
    return (i) => f.dispatchEvent(new KeyboardEvent('keydown', { key: key(i), bubbles: true, composed: true }));
  },
});
/**
 * The i-th prompt never typed before into transformer widget `host`: as many token ids as its
 * prompt has now, each below the model's vocabulary, a different sequence for every i up to V²
 * (with a = i mod V and b = ⌊i / V⌋ mod V, token 0 is a and token 1 is a + b + 21, so (a, b) and
 * hence i is read back from the first two tokens).
 */
function freshPrompt(host, i) {
  const V = host.currentModel.config.d_vocab;
  const T = host.state.prompt.length;
  const a = i % V,
    b = Math.floor(i / V) % V;
  return Array.from({ length: T }, (_, k) => (a + k * (b + 1) + k * k * 7 + k * 13) % V).join(' ');
}
const LISTS = ['7 1 3', '2 9 4 4', '5 0 8 1 6', '3 3 3', '9 0 9', '1 2', '6 2 8 4 0 5', '2 3 4 5 6'];

/** A pointer drag: pointerdown on `target` at its centre, then one pointermove per sample. */
function dragger(target, path) {
  let down = false;
  let origin = null;
  return (i) => {
    if (!down) {
      const r = target.getBoundingClientRect();
      origin = [r.left + r.width / 2, r.top + r.height / 2];
      target.dispatchEvent(
        new PointerEvent('pointerdown', {
          bubbles: true,
          composed: true,
          pointerId: 1,
          pointerType: 'mouse',
          isPrimary: true,
          buttons: 1,
          clientX: origin[0],
          clientY: origin[1],
        }),
      );
      down = true;
    }
    const [dx, dy] = path(i);
    target.dispatchEvent(
      new PointerEvent('pointermove', {
        bubbles: true,
        composed: true,
        pointerId: 1,
        pointerType: 'mouse',
        isPrimary: true,
        buttons: 1,
        clientX: origin[0] + dx,
        clientY: origin[1] + dy,
      }),
    );
  };
}
const circle = (radius, period) => (i) => [
  radius * Math.cos((2 * Math.PI * i) / period) - radius,
  radius * Math.sin((2 * Math.PI * i) / period),
];
const endDrag = (target) =>
  target.dispatchEvent(
    new PointerEvent('pointerup', { bubbles: true, composed: true, pointerId: 1, pointerType: 'mouse', isPrimary: true }),
  );

/**
 * tag → the inputs benchmarked on that element: { input, start(host) → step(i) , end?(host) }.
 * start() finds the control (after the element is interactive) and returns the function
 * applying the i-th input. Elements whose only input starts training (the seed grid, the
 * model's retraining) are measured as long tasks, not here.
 */
export const SCENARIOS = {
  'headlab-query-key-canvas': [
    { input: 'drag a query tip', start: (h) => dragger(q(h, 'g.handle.q'), circle(30, 60)), end: (h) => endDrag(q(h, 'g.handle.q')) },
    { input: 'score-scale slider step', start: (h) => (i) => slide(qa(h, 'input[type=range]')[0], i) },
  ],
  'headlab-projection-ablation': [
    buttonsScenario('ablation preset', '[aria-label=Presets] button'),
    typedScenario('typed matrix entry', 'input[type=number]', (i) => String(((i % 20) - 10) / 5)),
  ],
  'headlab-value-swap': [selectScenario('value column select')],
  'headlab-basis-rotation': [{ input: 'angle slider step', start: (h) => (i) => slide(q(h, 'input[type=range]'), i) }],
  'headlab-choice-quiz': [buttonsScenario('choose an answer', 'input[type=radio]')],
  'headlab-feature-recovery': [typedScenario('typed setting (steps)', 'input[name=steps]', (i) => String(1000 + (i % 50) * 10))],
  'headlab-training-replay': [{ input: 'scrub the replay', start: (h) => (i) => slide(q(h, 'input[type=range]'), i) }],
  'headlab-interventions': [
    buttonsScenario('intervention radio', 'fieldset.kinds input[type=radio]'),
    // Each sample a shift never typed before (±(1 + i/16), nothing kept): the core call every time.
    typedScenario('typed new shift', 'input[type=number]', (i) => String((i % 2 ? -1 : 1) * (1 + i / 16))),
  ],
  'headlab-max-digit-mechanism': [typedScenario('typed list of digits', 'input[name=digits]', (i) => LISTS[i % LISTS.length])],
  'headlab-score-ramps': [{ input: 'runner-up slider step', start: (h) => (i) => slide(q(h, 'input[type=range]'), i) }],
  'headlab-attention-bars': [typedScenario('typed list of digits', 'input[name=digits]', (i) => LISTS[i % LISTS.length])],
  'headlab-head-contributions': [
    { input: 'drag to rotate', start: (h) => dragger(q(h, 'svg.view3d'), circle(40, 90)), end: (h) => endDrag(q(h, 'svg.view3d')) },
    typedScenario('typed list of digits', 'input[name=digits]', (i) => LISTS[i % LISTS.length]),
  ],
  'headlab-attention-patch': [
    {
      input: 'patch (radio)',
      start: (h) => {
        const r = qa(h, 'input[type=radio]');
        return (i) => r[(i * 7) % r.length].click();
      },
    },
  ],
  'headlab-head-ablation': [buttonsScenario('ablation toggle', 'button[data-head]')],
  'headlab-subspace-accuracy': [
    { input: 'k slider step', start: (h) => (i) => slide(q(h, 'input[type=range]'), i) },
    selectScenario('basis select'),
  ],
  'headlab-angle-dot': [selectScenario('matrix select')],
  // The transformer widgets on an author's model (widgets/transformer/): a new prompt is a prompt
  // never seen before (each sample types another one: nothing cached), of the length shown.
  'headlab-transformer-attention': [
    {
      input: 'hover a token',
      start: (h) => {
        const b = qa(h, '.tokens button');
        return (i) => b[(i * 5) % b.length].dispatchEvent(new PointerEvent('pointerover', { bubbles: true, composed: true }));
      },
    },
    typedScenario('typed new prompt', '[name=prompt]', (i, h) => freshPrompt(h, i)),
  ],
  'headlab-transformer-attribution': [
    selectScenario('position select', 'select[name=position]'),
    selectScenario('token select', 'select[name=token]'),
    typedScenario('typed new prompt', '[name=prompt]', (i, h) => freshPrompt(h, i)),
  ],
  'headlab-transformer-ablation': [
    {
      input: 'ablation toggle',
      start: (h) => {
        const b = qa(h, 'input[type=checkbox][data-head]');
        return (i) => b[(i * 3) % b.length].click();
      },
    },
  ],
  'headlab-transformer-patching': [
    keyScenario('move the outlined cell', '.layered', (i) => (i % 7 === 6 ? 'ArrowDown' : 'ArrowRight')),
    selectScenario('answer select', 'select[name=answer]'),
  ],
  'headlab-attribution-patching': [keyScenario('move the point read out', '.scatter', (i) => (i % 9 === 8 ? 'Home' : 'ArrowRight'))],
  'headlab-qk-attribution': [selectScenario('key select', 'select[name=key]'), selectScenario('query select', 'select[name=position]')],
  'headlab-transformer-circuits': [
    selectScenario('head select', 'select[name=head]'),
    selectScenario('circuit select', 'select[name=circuit]'),
  ],
  'headlab-logit-lens': [selectScenario('position select', 'select[name=position]')],
  'headlab-head-svd': [selectScenario('head select', 'select[name=head]')],
  'headlab-transformer-composition': [
    selectScenario('kind select', 'select[name=kind]'),
    selectScenario('head select', 'select[name=head]'),
  ],
};

const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));

/** The p-th quantile (0 … 1) of sorted `xs`, nearest rank. */
export function quantile(sorted, p) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

/** Longest wait for a widget's worker to answer one input, ms. */
const SETTLE_TIMEOUT_MS = 30000;

/**
 * Runs one scenario on `host`: `warmup` unmeasured inputs (the engine compiles the hot paths,
 * caches fill), then `samples` measured ones, one per animation frame. `forceLayout: false`
 * leaves the style and layout to the frame, as a reader's input does (the layout figures are then
 * the script's). `mark: true` puts a performance.mark('headlab-sample') in each measured frame
 * (and 'headlab-settled' in each render of a worker's answer, below).
 * An input whose computation goes to the widget's worker (the transformer figures: `host.busy`
 * after it) is an update in two parts: the synchronous one timed as above, and the render that
 * draws the worker's answer when it arrives, at a later frame. Each sample waits for that answer
 * and times every render of the host until then and one frame after (host.lastRenderMs, the
 * render's script time): `settled`, one entry per such render; an input answered at once adds none.
 * Returns { script: number[], layout: number[], settled: number[] } in ms, or throws when the
 * widget shows an error (an input that broke the widget is a finding, not a timing).
 */
export async function measureScenario(host, scenario, { samples = 200, warmup = 20, forceLayout = true, mark = false } = {}) {
  const step = scenario.start(host);
  const script = [];
  const layout = [];
  const settled = [];
  let measuring = false;
  // Renders the host runs by itself (not the renderNow() timed below): the worker's answers drawn.
  // With `mark`, a performance.mark('headlab-settled') inside each such render (its listeners run
  // in it), so a trace finds the frame that drew the answer and its CPU time.
  const onRender = (e) => {
    if (!measuring || e.target !== host) return;
    if (mark) performance.mark('headlab-settled');
    queueMicrotask(() => settled.push(host.lastRenderMs));
  };
  host.addEventListener('headlab-render', onRender);
  try {
    for (let i = 0; i < warmup + samples; i++) {
      await frame();
      // A user-timing mark in each measured sample's frame: a Chromium trace of the run then finds
      // the frames that are samples (bench/widgets.bench.mjs reads their thread CPU time).
      if (mark && i >= warmup) performance.mark('headlab-sample');
      const t0 = performance.now();
      step(i);
      host.renderNow();
      const t1 = performance.now();
      if (forceLayout) void document.body.offsetHeight; // forces the style and layout the update caused
      const t2 = performance.now();
      if (i >= warmup) {
        script.push(t1 - t0);
        layout.push(t2 - t0);
      }
      if (host.busy) {
        measuring = i >= warmup;
        const began = performance.now();
        while (host.busy) {
          if (performance.now() - began > SETTLE_TIMEOUT_MS)
            throw new Error(`${host.localName}#${host.id}: the worker did not answer "${scenario.input}" in ${SETTLE_TIMEOUT_MS} ms`);
          await frame();
        }
        await frame();
        await frame();
        measuring = false;
      }
    }
  } finally {
    host.removeEventListener('headlab-render', onRender);
  }
  scenario.end?.(host);
  const alert = host.shadowRoot.querySelector('.alert');
  if (alert && !alert.hidden)
    throw new Error(`${host.localName}#${host.id} showed an error during "${scenario.input}": ${alert.textContent}`);
  return { script, layout, settled };
}

/** { samples, p50, p95, max } of the times, ms. */
export function summarize(times) {
  const s = [...times].sort((a, b) => a - b);
  return { samples: s.length, p50: quantile(s, 0.5), p95: quantile(s, 0.95), max: s[s.length - 1] };
}

/** Whether the element is interactive: rendered live (core loaded, controls built), with its model if it needs one. */
export function interactive(el) {
  return el.renderCount > 0 && (!('currentModel' in el) || el.currentModel !== null);
}
