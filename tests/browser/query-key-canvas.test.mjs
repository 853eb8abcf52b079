// <headlab-query-key-canvas> on the first article: the three edits, keyboard, mouse and touch
// drags, the score scale and the changes of basis, each checked against the native CLI
// (`headlab attention`) or closed forms; each edit visibly moves arrows from the starting head; the predict-first quiz and its "try it" link;
// text size and touch targets at 360 px; screenshots; a drag patches the figure's nodes in place
// (none created per step) and leaves the same markup as a fresh draw (the SVG export).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { screenshot, startSession } from './helpers.mjs';
import { ARTICLE, frames, rendered } from './widget-fixtures.mjs';
import { cliJson } from '../wasm/helpers.mjs';

// Native (glibc, SSE2) and WASM (musl) exp/sum rounding: a few ulp on values of order one.
const NATIVE_WASM_TOLERANCE = 16 * Number.EPSILON;
// The canvas's own "unchanged" threshold (SCORE_INVARIANCE_TOLERANCE in the widget).
const SCORE_TOL = 1e-12;
const I2 = [
  [1, 0],
  [0, 1],
];
// The article's starting head (START_W_Q, START_W_K in the widget) and its two column exchanges.
const START_Q = [
  [1, 0.2],
  [-0.2, 1],
];
const START_K = [
  [1, -0.2],
  [0.2, 1],
];
const SWAPPED_Q = [
  [0.2, 1],
  [1, -0.2],
];
const SWAPPED_K = [
  [-0.2, 1],
  [1, 0.2],
];
/** Distance, in plane units, from vector v to the nearest of the vectors in m. */
const nearest = (v, m) => Math.min(...m.map((u) => Math.hypot(v[0] - u[0], v[1] - u[1])));

let session;
before(async () => {
  session = await startSession({ csp: true });
});
after(async () => {
  await session?.close();
});

/** Weights of the head x = I with these projections from the native CLI, at score scale s (the CLI uses 1/√2; rescale the dot products). */
function nativeWeights({ w_q = START_Q, w_k = START_K, w_v = I2 }, s) {
  const r = cliJson(['attention'], JSON.stringify({ x: I2, w_q, w_k, w_v }));
  if (Math.abs(s - Math.SQRT1_2) < 1e-15) return { weights: r.weights, reading: r.reading };
  // Other scales: softmax of s·(Q Kᵀ) computed from the CLI's own dot products.
  const weights = r.dot_products.map((row) => {
    const z = row.map((d) => s * d),
      m = Math.max(...z),
      e = z.map((t) => Math.exp(t - m)),
      sum = e[0] + e[1];
    return e.map((t) => t / sum);
  });
  return { weights, reading: weights.map((w) => [0, 1].map((j) => w[0] * r.v[0][j] + w[1] * r.v[1][j])) };
}

function assertClose(actual, expected, tol, what) {
  actual.flat().forEach((a, i) => assert.ok(Math.abs(a - expected.flat()[i]) <= tol, `${what}[${i}]: ${a} vs ${expected.flat()[i]}`));
}

const state = (page, id = 'qk') => page.evaluate((s) => document.getElementById(s).state, id);

async function open(options = {}, hash = '') {
  const page = await session.newPage(options);
  await page.goto(`${session.url}${ARTICLE}${hash}`);
  await rendered(page, '#qk');
  await rendered(page, '#qk-basis');
  return page;
}

test('query-key canvas: the three edits and the score scale match the native CLI', async () => {
  const page = await open();
  const qk = page.locator('#qk');
  let s = await state(page);
  assert.equal(s.score_scale, Math.SQRT1_2);
  assertClose(s.weights, nativeWeights({}, Math.SQRT1_2).weights, NATIVE_WASM_TOLERANCE, 'starting weights');
  // The article's "60%": softmax of (q₁·k₁, q₁·k₂)/√2 = (0.96, 0.4)/√2.
  assert.ok(Math.abs(s.weights[0][0] - 1 / (1 + Math.exp(-0.56 * Math.SQRT1_2))) <= NATIVE_WASM_TOLERANCE);
  assert.equal(Math.round(100 * s.weights[0][0]), 60);
  // At the start no query lies on a key: each tip is a separate arrow (0.4 plane units ≈ 33 px apart at least).
  for (const q of s.q) assert.ok(nearest(q, s.k) >= 0.4 - 1e-12, `query ${q} apart from every key`);
  const start = s;
  for (const [button, attrs] of [
    ['Swap WQ', { w_q: SWAPPED_Q }],
    ['Swap WK', { w_k: SWAPPED_K }],
    [
      'W_V = diag(2, −3)'.replace('_', ''),
      {
        w_v: [
          [2, 0],
          [0, -3],
        ],
      },
    ],
  ]) {
    await qk.getByRole('button', { name: button }).click();
    await frames(page);
    s = await state(page);
    const native = nativeWeights(attrs, s.score_scale);
    assertClose(s.weights, native.weights, NATIVE_WASM_TOLERANCE, `${button} weights`);
    assertClose(s.reading, native.reading, NATIVE_WASM_TOLERANCE, `${button} reading`);
    assert.equal(await qk.getByRole('button', { name: button }).getAttribute('aria-pressed'), 'true');
    // Each edit visibly changes the plane: an edited query (or key) lands where no query (key) of
    // the start was (0.4 plane units, 22° and about 30 px, from the nearest), so the edit moves arrows
    // rather than trading two labels (with W_Q = W_K = I it did: distance 0); the other kind stays.
    const [moved, kept] = attrs.w_q ? ['q', 'k'] : attrs.w_k ? ['k', 'q'] : [null, null];
    if (moved) {
      for (const v of s[moved])
        assert.ok(nearest(v, start[moved]) >= 0.4 - 1e-12, `${button}: ${moved} ${v} away from every starting ${moved}`);
      assert.deepEqual(s[kept], start[kept], `${button}: the ${kept} arrows stay`);
    } else {
      assert.deepEqual([s.q, s.k], [start.q, start.k], `${button}: no arrow moves`);
      assert.notDeepEqual(s.v, start.v, `${button}: the values change`);
    }
  }
  // W_V edit: weights equal the identity head's, the readings do not.
  assertClose(s.weights, nativeWeights({}, Math.SQRT1_2).weights, NATIVE_WASM_TOLERANCE, 'W_V edit keeps weights');
  // The prose's state link: W_Q edit at s = 4 → 2% / 98% for the first query.
  await page.locator('a.state-link', { hasText: 'Apply the edit' }).click();
  await frames(page);
  s = await state(page);
  assert.equal(s.score_scale, 4);
  assert.deepEqual(s.w_q, SWAPPED_Q);
  assert.equal(await qk.getByRole('button', { name: 'Swap WQ' }).getAttribute('aria-pressed'), 'true');
  assertClose(s.weights, nativeWeights({ w_q: SWAPPED_Q }, 4).weights, NATIVE_WASM_TOLERANCE, 's = 4');
  // The prose: q₁′ = [0.2, 1] is k₂, its dot products 0 and 1.04, so 98% on the second key.
  assert.deepEqual(s.q[0], s.k[1]);
  assert.equal(Math.round(100 * s.weights[0][1]), 98);
  // "Raise the scale to 4": 90% to 10% at the start.
  assertClose(
    nativeWeights({}, 4).weights[0],
    [1 / (1 + Math.exp(-4 * 0.56)), 1 / (1 + Math.exp(4 * 0.56))],
    NATIVE_WASM_TOLERANCE,
    's = 4 start',
  );
  assert.equal(Math.round(100 / (1 + Math.exp(-4 * 0.56))), 90);
  // The scale slider is logarithmic: End = 2³ = 8.
  await qk.getByRole('slider', { name: 'Score scale s' }).focus();
  await page.keyboard.press('End');
  await frames(page);
  assert.equal((await state(page)).score_scale, 8);
  assert.deepEqual(page.problems, []);
});

test('query-key canvas: keyboard, mouse and touch move the vector tips', async () => {
  const page = await open({ hasTouch: true });
  const qk = page.locator('#qk');
  const q1 = qk.getByRole('button', { name: /^query 1 at/ });
  await q1.focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Shift+ArrowLeft');
  await frames(page);
  let s = await state(page);
  assert.deepEqual(s.w_q, [
    [0.5, 0.5],
    [-0.2, 1],
  ]);
  assertClose(s.weights, nativeWeights({ w_q: s.w_q }, s.score_scale).weights, NATIVE_WASM_TOLERANCE, 'after keys');
  assert.match(await q1.getAttribute('aria-label'), /query 1 at \[0\.5, 0\.5\]/);
  assert.match(await qk.locator('[aria-live="polite"]').last().textContent(), /Query 1 at \[0\.5, 0\.5\]\. query 1 gives \d+% to key 1/);
  // Mouse: drag key 2's tip to a point; the row of W_K follows the pointer, the weights the CLI.
  const k2 = qk.getByRole('button', { name: /^key 2 at/ });
  const box = await k2.boundingBox();
  const cx = box.x + box.width / 2,
    cy = box.y + box.height / 2;
  await page.mouse.move(cx, cy);
  await page.mouse.down();
  await page.mouse.move(cx + 40, cy + 30, { steps: 5 });
  await page.mouse.up();
  await frames(page);
  s = await state(page);
  assert.ok(s.w_k[1][0] > 0.2 && s.w_k[1][1] < 0.9, `key 2 moved right and down: ${JSON.stringify(s.w_k)}`);
  assertClose(s.weights, nativeWeights({ w_q: s.w_q, w_k: s.w_k }, s.score_scale).weights, NATIVE_WASM_TOLERANCE, 'after drag');
  // Touch: a pointer of type touch on key 1 (dispatched through CDP's touch emulation).
  const k1 = qk.getByRole('button', { name: /^key 1 at/ });
  const b1 = await k1.boundingBox();
  const client = await page.context().newCDPSession(page);
  const at = (x, y) => [{ x, y }];
  await client.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(b1.x + b1.width / 2, b1.y + b1.height / 2) });
  await client.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(b1.x + b1.width / 2, b1.y + b1.height / 2 - 40) });
  await client.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await frames(page);
  s = await state(page);
  assert.ok(s.w_k[0][1] > START_K[0][1] + 0.2, `touch moved key 1 up: ${JSON.stringify(s.w_k)}`);
  assertClose(s.weights, nativeWeights({ w_q: s.w_q, w_k: s.w_k }, s.score_scale).weights, NATIVE_WASM_TOLERANCE, 'after touch');
  assert.deepEqual(page.problems, []);
});

test('query-key canvas: rotation and invertible A keep every score; a singular A is refused', async () => {
  const page = await open();
  const fig = page.locator('#qk-basis');
  let s = await state(page, 'qk-basis');
  assert.equal(s.basis, 'rotation');
  const th = (s.angle_degrees * Math.PI) / 180;
  // Q′ = Q R with R the plane rotation [[c, s], [−s, c]]: q₁ = [1, 0] → [c, s].
  assertClose(
    s.q,
    s.q_before.map(([a, b]) => [a * Math.cos(th) - b * Math.sin(th), a * Math.sin(th) + b * Math.cos(th)]),
    4 * Number.EPSILON,
    'rotated queries',
  );
  assert.ok(s.max_score_difference <= SCORE_TOL);
  assert.ok(Math.abs(s.query_lengths[0] - s.query_lengths_before[0]) <= 4 * Number.EPSILON);
  await page.locator('a.state-link', { hasText: 'With a shear and stretch' }).click();
  await frames(page);
  s = await state(page, 'qk-basis');
  assert.equal(s.basis, 'invertible');
  assert.ok(s.max_score_difference <= SCORE_TOL, `max |S′ − S| = ${s.max_score_difference}`);
  // The prose: length 1 → about 1.7, right angle → about 69°.
  assert.ok(Math.abs(s.query_lengths[0] - Math.hypot(1.6, 0.6)) <= 4 * Number.EPSILON);
  assert.equal(Math.round(10 * s.query_lengths[0]) / 10, 1.7);
  assert.equal(Math.round(s.query_angle_degrees), 69);
  assert.equal(Math.round(s.query_angle_degrees_before), 90);
  assert.match(await fig.locator('.verdict').textContent(), /every score unchanged/);
  // Edges (weights) equal the original basis' weights.
  const plain = nativeWeights(
    {
      w_q: I2,
      w_k: [
        [1, 0.5],
        [-0.5, 1],
      ],
    },
    s.score_scale,
  ).weights;
  assertClose(s.weights, plain, NATIVE_WASM_TOLERANCE, 'weights after A');
  // A singular A: the core's message in the widget's alert, not a drawing.
  const boxes = fig.getByRole('spinbutton');
  await boxes.nth(0).fill('1');
  await boxes.nth(0).press('Enter');
  await boxes.nth(1).fill('2');
  await boxes.nth(1).press('Enter');
  await boxes.nth(2).fill('2');
  await boxes.nth(2).press('Enter');
  await boxes.nth(3).fill('4');
  await boxes.nth(3).press('Enter');
  await assert.doesNotReject(
    fig
      .getByRole('alert')
      .getByText(/A \(2 × 2\) is singular/)
      .waitFor(),
  );
  // Refused beside the entries, not in place of the figure: the plane, the entries and the last
  // valid A stay, and a corrected entry applies.
  await frames(page);
  const kept = await state(page, 'qk-basis');
  assert.deepEqual(kept.a, [
    [1, 2],
    [2, 0.7],
  ]);
  assert.ok(await fig.getByRole('group', { name: 'Query and key plane' }).isVisible(), 'the plane stays');
  assert.ok(await boxes.nth(3).isVisible(), 'the entries stay');
  assert.equal(await boxes.nth(3).getAttribute('aria-invalid'), '');
  assert.equal(await boxes.nth(3).inputValue(), '4', 'the typed entry stays');
  await boxes.nth(3).fill('5');
  await boxes.nth(3).press('Enter');
  await frames(page);
  s = await state(page, 'qk-basis');
  assert.deepEqual(s.a, [
    [1, 2],
    [2, 5],
  ]);
  assert.ok(s.max_score_difference <= SCORE_TOL);
  assert.equal(
    await fig
      .getByRole('alert')
      .filter({ hasText: /singular/ })
      .count(),
    0,
  );
  assert.equal(await boxes.nth(3).getAttribute('aria-invalid'), null);
  // A singular A from a link (the attribute, not the entries): the same message beside the
  // entries, which show it; the plane stays, drawn without the change of basis.
  await page.evaluate(() => {
    location.hash = '#qk-basis.basis=invertible&qk-basis.a=[[1,2],[2,4]]&qk-basis.w-q=[[1,0],[0,1]]';
  });
  await fig
    .getByRole('alert')
    .getByText(/A \(2 × 2\) is singular/)
    .waitFor();
  await frames(page);
  assert.ok(await fig.getByRole('group', { name: 'Query and key plane' }).isVisible(), 'the plane stays after a singular A from a link');
  assert.deepEqual(await Promise.all([0, 1, 2, 3].map((i) => boxes.nth(i).inputValue())), ['1', '2', '2', '4']);
  s = await state(page, 'qk-basis');
  assert.deepEqual([s.q, s.k], [s.q_before, s.k_before], 'no change of basis drawn');
  // …under the originals' names: no primed labels, no ghosts; the message reads as the core's
  // text, its A⁻ᵀ written as a reader reads it.
  const labels = () =>
    page.evaluate(() => {
      const el = document.getElementById('qk-basis');
      return ['plane', 'routes'].map((f) => [...el.exportSvg(f).matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]).join(' '));
    });
  for (const text of await labels()) assert.doesNotMatch(text, /′/, `a refused A draws no primed label: ${text}`);
  const message = await fig.getByRole('alert').textContent();
  assert.match(message, /K′ = K A⁻ᵀ does not exist/);
  assert.doesNotMatch(message, /\^\{/);
  await boxes.nth(3).fill('5');
  await boxes.nth(3).press('Enter');
  await frames(page);
  s = await state(page, 'qk-basis');
  for (const text of await labels()) assert.match(text, /[qk]′/, `an applied A draws q′ and k′: ${text}`);
  assert.deepEqual(s.a, [
    [1, 2],
    [2, 5],
  ]);
  assert.equal(
    await fig
      .getByRole('alert')
      .filter({ hasText: /singular/ })
      .count(),
    0,
  );
  assert.deepEqual(page.problems, []);
});

test('query-key canvas: where a query and a key tip meet, a press on the query ring drags the query', async () => {
  const page = await open();
  const qk = page.locator('#qk');
  // After the W_Q edit query 1 lies on key 2 (q₁′ = k₂ = [0.2, 1]); their rings sit 22 units
  // apart and each grab area is 24 units round, so the two areas overlap, the key's on top.
  await qk.getByRole('button', { name: 'Swap WQ' }).click();
  await frames(page);
  const s0 = await state(page);
  assert.deepEqual(s0.q[0], s0.k[1]);
  await qk.locator('g.handle.q').first().scrollIntoViewIfNeeded();
  const ring = await qk.locator('g.handle.q circle.ring').first().boundingBox();
  const cx = ring.x + ring.width / 2,
    cy = ring.y + ring.height / 2;
  await page.mouse.move(cx, cy);
  await page.mouse.down();
  await page.mouse.move(cx + 30, cy - 30, { steps: 5 });
  await page.mouse.up();
  await frames(page);
  const s = await state(page);
  assert.notDeepEqual(s.w_q[0], s0.w_q[0], `query 1 moved: ${JSON.stringify([s0.w_q, s.w_q, s.w_k])}`);
  assert.deepEqual(s.w_k, s0.w_k, 'no key moved');
  assert.deepEqual(page.problems, []);
});

test('query-key canvas: a drag patches the drawn nodes in place, with the markup of a fresh draw', async () => {
  const page = await open();
  const r = await page.evaluate(() => {
    const host = document.getElementById('qk');
    const svgs = [...host.shadowRoot.querySelectorAll('svg svg, .fig svg, svg')].filter((s) => s.querySelector(':scope > defs'));
    let added = 0;
    const observer = new MutationObserver((records) => {
      for (const m of records) added += m.addedNodes.length;
    });
    // Only children of the figures' own svgs: shape nodes. (A changed label rewrites its text's children.)
    for (const svg of svgs) observer.observe(svg, { childList: true });
    const before = svgs.map((svg) => [...svg.children]);
    for (let i = 1; i <= 30; i++) {
      host.setAttribute('w-q', `[[${Math.cos(i / 10).toFixed(2)},${Math.sin(i / 10).toFixed(2)}],[0,1]]`);
      host.renderNow();
    }
    const records = observer.takeRecords();
    for (const m of records) added += m.addedNodes.length;
    observer.disconnect();
    const same = svgs.every((svg, k) => svg.children.length === before[k].length && [...svg.children].every((c, j) => c === before[k][j]));
    // The on-page plane against the exported SVG of the same state (drawn fresh): child by child.
    const ser = new XMLSerializer();
    const fresh = new DOMParser().parseFromString(host.exportSvg('plane'), 'image/svg+xml').documentElement;
    const freshChildren = [...fresh.children].filter((c) => c.localName !== 'title' && c.localName !== 'desc').slice(1); // drop the background rect
    const plane = svgs.find((svg) => svg.children.length === freshChildren.length);
    return {
      svgs: svgs.length,
      added,
      same,
      equal: plane !== undefined && freshChildren.every((c, j) => ser.serializeToString(c) === ser.serializeToString(plane.children[j])),
    };
  });
  assert.equal(r.svgs, 2, 'the plane and the edges');
  assert.equal(r.added, 0, 'no shape node created during 30 drag steps');
  assert.equal(r.same, true, 'the same nodes, patched');
  assert.equal(r.equal, true, 'patched markup equals a fresh draw');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('predict-first quiz: each wrong choice says why; the try-it link sets the canvas', async () => {
  const page = await open();
  const quiz = page.locator('#quiz-predict');
  await page.locator('#quiz-predict > [slot="choice"]').nth(0).click();
  await quiz.getByRole('button', { name: 'Check' }).click();
  await frames(page);
  assert.equal(await page.locator('#quiz-predict > [slot="why"]').nth(0).isVisible(), true);
  assert.match(
    await page.locator('#quiz-predict > [slot="why"]').nth(0).textContent(),
    /every query, so the second query's weights flip too/,
  );
  assert.equal(await page.locator('#quiz-predict > [slot="why"]').nth(2).isVisible(), false);
  await page.locator('#quiz-predict > [slot="choice"]').nth(2).click();
  await quiz.getByRole('button', { name: 'Check' }).click();
  await frames(page);
  assert.match(await quiz.getByRole('status').textContent(), /Correct: choice 3/);
  const before = await state(page);
  await page.locator('#quiz-predict > [slot="why"]').nth(2).getByRole('link', { name: 'Try it in the figure' }).click();
  await frames(page);
  const s = await state(page);
  assert.deepEqual(s.w_q, [
    [0, 1],
    [-0.2, 1],
  ]);
  // What the answer claims: query 2's weights exactly as at the start at the same scale; query 1's flipped.
  const unedited = nativeWeights({}, s.score_scale).weights;
  assertClose([s.weights[1]], [unedited[1]], NATIVE_WASM_TOLERANCE, 'query 2 unchanged');
  assert.ok(s.weights[0][1] > 0.9 && before.w_q[0][0] === 1);
  await screenshot(quiz, 'query-key-quiz-light');
  assert.deepEqual(page.problems, []);
});

for (const width of [360, 1280]) {
  for (const colorScheme of ['light', 'dark']) {
    test(`query-key canvas at ${width} px (${colorScheme}): text ≥ 11 px, targets ≥ 44 px, screenshots`, async () => {
      const page = await open(
        { colorScheme, viewport: { width, height: 900 } },
        '#qk.w-q=[[0.2,1],[1,-0.2]]&qk.scale=4&qk-basis.basis=invertible&qk-basis.scale=4&qk-basis.w-q=[[1,0],[0,1]]&qk-basis.w-k=[[1,0.5],[-0.5,1]]',
      );
      for (const id of ['qk', 'qk-basis']) {
        const sizes = await page.evaluate((i) => {
          const host = document.getElementById(i);
          const out = [];
          for (const svg of host.shadowRoot.querySelectorAll('svg.outer')) {
            const k = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            for (const t of svg.querySelectorAll('text')) {
              const own = Number(t.getAttribute('font-size'));
              for (const span of [t, ...t.querySelectorAll('tspan')]) out.push(k * Number(span.getAttribute('font-size') ?? own));
            }
          }
          // The figure's own controls on screen now (hidden rows have no box; the shared download
          // menu is the base class's, sized for touch by the site's coarse-pointer rule).
          const targets = [...host.shadowRoot.querySelectorAll('.handle:not([hidden]), button, input')]
            .filter((e) => !e.closest('.export-menu, .exports'))
            .map((e) => e.getBoundingClientRect())
            .filter((r) => r.width > 0 && r.height > 0)
            .map((r) => Math.min(r.width, r.height));
          return { smallestText: Math.min(...out), smallestTarget: Math.min(...targets) };
        }, id);
        assert.ok(sizes.smallestText >= 11, `${id}: smallest chart text ${sizes.smallestText.toFixed(2)} px`);
        assert.ok(sizes.smallestTarget >= 44 - 0.5, `${id}: smallest touch target ${sizes.smallestTarget.toFixed(1)} px`);
      }
      // The token labels x₁, x₂ overprint no other label and no tip's ring, after the W_Q edit
      // of the link and at the start (where a fixed place put x₂ under q₂'s ring).
      for (const when of ['after the W_Q edit', 'at the start']) {
        if (when === 'at the start') {
          await page.locator('#qk').getByRole('button', { name: 'Start' }).click();
          await frames(page);
        }
        const clashes = await page.evaluate(() => {
          const host = document.getElementById('qk');
          const plane = host.shadowRoot.querySelector('svg.outer');
          const boxes = (els) => [...els].map((e) => [e.textContent, e.getBoundingClientRect()]);
          const texts = boxes(plane.querySelectorAll('text')).filter(([, r]) => r.width > 0);
          const rings = [...plane.querySelectorAll('.handle:not([hidden]) circle.ring')].map((c) => c.getBoundingClientRect());
          const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
          // A ring is a circle: it meets a box when the box comes nearer its centre than its radius.
          const onRing = (a, c) =>
            Math.hypot(
              Math.max(a.left - (c.left + c.right) / 2, 0, (c.left + c.right) / 2 - a.right),
              Math.max(a.top - (c.top + c.bottom) / 2, 0, (c.top + c.bottom) / 2 - a.bottom),
            ) <
            c.width / 2 - 0.5;
          return texts
            .filter(([t]) => /^x[₁₂]$/.test(t))
            .flatMap(([t, r]) => [
              ...texts.filter(([u, o]) => u !== t && meet(r, o)).map(([u]) => `${t} on ${u}`),
              ...rings.filter((c) => onRing(r, c)).map(() => `${t} on a ring`),
            ]);
        });
        assert.deepEqual(clashes, [], `${when}: token labels overprint`);
      }
      // The basis figure at the shear of the text, where q₂′ and k₁′ end close together: no two
      // labels of the plane overprint (their tip labels did).
      const overprints = await page.evaluate(() => {
        const plane = document.getElementById('qk-basis').shadowRoot.querySelector('svg.outer');
        const texts = [...plane.querySelectorAll('text')]
          .map((e) => [e.textContent, e.getBoundingClientRect()])
          .filter(([, r]) => r.width > 0);
        const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
        return texts.flatMap(([t, r], i) =>
          texts
            .slice(i + 1)
            .filter(([, o]) => meet(r, o))
            .map(([u]) => `${t} on ${u}`),
        );
      });
      assert.deepEqual(overprints, [], 'basis figure labels overprint');
      await screenshot(page.locator('#fig-canvas'), `query-key-canvas-${width}-${colorScheme}`);
      await screenshot(page.locator('#fig-basis'), `query-key-basis-${width}-${colorScheme}`);
      assert.deepEqual(page.problems, []);
    });
  }
}
