// The widget bundle as an author embeds it: only build/site/headlab/ copied into an
// empty folder, one script tag, served under the strict CSP. Also: bad attributes,
// a failed core load, render coalescing, clean-up on removal, the page's colour
// scheme, and a 360 px viewport.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { screenshot, startSession } from './helpers.mjs';
import { ARTICLE, bundleDir, frames, rendered } from './widget-fixtures.mjs';

const TAGS = ['headlab-projection-ablation', 'headlab-value-swap', 'headlab-basis-rotation', 'headlab-choice-quiz'];
// The elements on the first article (the basis-rotation tables left it for the query/key canvas).
const ARTICLE_TAGS = ['headlab-query-key-canvas', 'headlab-projection-ablation', 'headlab-value-swap', 'headlab-choice-quiz'];
const QUIZ = `<headlab-choice-quiz>
  <p slot="question">Which projection leaves the attention weights alone?</p>
  <div slot="choice">W_Q</div><div slot="choice" data-correct>W_V</div>
  <div slot="hint">Look at the softmax.</div><div slot="solution">W_V.</div>
</headlab-choice-quiz>`;

let dir, session;
before(async () => {
  dir = bundleDir({
    'index.html': {
      body: `<h1>My post</h1>\n${TAGS.slice(0, 3)
        .map((t) => `<${t}></${t}>`)
        .join('\n')}\n${QUIZ}`,
    },
    'bad.html': {
      body: '<headlab-basis-rotation id="angle" angle="ninety"></headlab-basis-rotation>\n<headlab-projection-ablation id="wq" w-q="[[1, 0], [0]]"></headlab-projection-ablation>\n<headlab-projection-ablation id="query" query="3"></headlab-projection-ablation>\n<headlab-transformer-attention id="orphan" model="nope"></headlab-transformer-attention>\n<headlab-transformer-model id="nosrc"><headlab-transformer-circuits id="inside"></headlab-transformer-circuits></headlab-transformer-model>',
    },
    'dark.html': { head: '<meta name="color-scheme" content="dark">', body: '<headlab-value-swap></headlab-value-swap>' },
  });
  session = await startSession({ dir, csp: true });
});
after(async () => {
  await session?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('bundle folder alone: every element works under the strict CSP, no errors, no other origin', async () => {
  assert.deepEqual(fs.readdirSync(dir).sort(), ['bad.html', 'dark.html', 'favicon.svg', 'headlab', 'index.html']);
  const page = await session.newPage();
  await page.goto(`${session.url}index.html`);
  for (const tag of TAGS) await rendered(page, tag);
  const reading = await page.evaluate(() => document.querySelector('headlab-value-swap').state.swapped_reading);
  assert.deepEqual(
    reading.map((x) => Math.round(x * 1e12) / 1e12),
    [0.8, 0.5, 1.3],
  );
  const maxDiff = await page.evaluate(() => document.querySelector('headlab-basis-rotation').state.max_score_difference);
  assert.ok(maxDiff <= 1e-12);
  await page.locator('headlab-choice-quiz').getByText('W_V', { exact: true }).click();
  await page.locator('headlab-choice-quiz').getByRole('button', { name: 'Check' }).click();
  assert.match(await page.locator('headlab-choice-quiz').getByRole('status').textContent(), /Correct/);
  await screenshot(page, 'embedding-bundle-only');
  assert.deepEqual(page.problems, []);
});

test('bad attributes show a message inside the widget (role="alert") naming the attribute', async () => {
  const page = await session.newPage();
  await page.goto(`${session.url}bad.html`);
  const alert = (id) => page.locator(`#${id}`).getByRole('alert');
  await alert('angle').waitFor();
  assert.match(await alert('angle').textContent(), /attribute angle="ninety" is not a finite number/);
  assert.match(await alert('wq').textContent(), /attribute w-q row 2 must be an array of 2 numbers/);
  assert.match(await alert('query').textContent(), /attribute query="3" must be between 1 and 2/);
  // The transformer figures: a model id naming nothing; a model element without src, and the figure inside it.
  assert.match(await alert('orphan').textContent(), /attribute model="nope" names no <headlab-transformer-model id="nope">/);
  await alert('inside').waitFor();
  // The model element's own alert comes first; the figure nested in it (shown through its slot) has its own.
  assert.match(await alert('nosrc').first().textContent(), /needs src="model.safetensors"/);
  assert.match(await alert('inside').textContent(), /The model could not be loaded: a <headlab-transformer-model> needs src/);
  await screenshot(page.locator('#angle'), 'basis-rotation-bad-attribute');
  await page.evaluate(() => {
    document.querySelector('#angle').angle = 45;
  });
  await alert('angle').waitFor({ state: 'hidden' });
  assert.equal(await page.evaluate(() => document.querySelector('#angle').state.angle_degrees), 45);
  assert.deepEqual(page.problems, []);
});

test('a core that fails to load gives a message in each core widget; the quiz still works', async () => {
  const broken = bundleDir({ 'index.html': { body: `<headlab-value-swap></headlab-value-swap>\n${QUIZ}` } }, { withoutWasm: true });
  const s = await startSession({ dir: broken, csp: true });
  try {
    const page = await s.newPage();
    await page.goto(`${s.url}index.html`);
    const alert = page.locator('headlab-value-swap').getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.textContent(), /could not start: the headlab WebAssembly core failed to load/);
    await rendered(page, 'headlab-choice-quiz');
    await screenshot(page.locator('headlab-value-swap'), 'value-swap-core-load-failure');
    // The only problems are the missing .wasm itself.
    assert.ok(
      page.problems.length > 0 && page.problems.every((p) => /404|wasm|WebAssembly|abort|Aborted/i.test(p)),
      page.problems.join('\n'),
    );
  } finally {
    await s.close();
    fs.rmSync(broken, { recursive: true, force: true });
  }
});

test('renders coalesce to one per frame; removal cancels renders and listeners; re-attaching rebuilds', async () => {
  const page = await session.newPage();
  await page.goto(`${session.url}index.html`);
  await rendered(page, 'headlab-basis-rotation');
  const before = await page.evaluate(() => document.querySelector('headlab-basis-rotation').renderCount);
  await page.evaluate(() => {
    const w = document.querySelector('headlab-basis-rotation');
    for (let a = 0; a < 20; a++) w.angle = a;
  });
  await frames(page);
  assert.equal(await page.evaluate(() => document.querySelector('headlab-basis-rotation').renderCount), before + 1);

  const after = await page.evaluate(async () => {
    const w = document.querySelector('headlab-basis-rotation');
    const slider = w.shadowRoot.querySelector('input[type=range]');
    let events = 0;
    document.addEventListener('change', () => {
      events++;
    });
    w.angle = 50; // schedules a render …
    w.remove(); // … which removal cancels
    const count = w.renderCount;
    w.angle = 60; // detached: no render is scheduled
    slider.value = '10';
    slider.dispatchEvent(new Event('input')); // its listener was removed
    // Nothing scheduled is left (a state: no frame, task or field check to wait out), so nothing renders later.
    const result = {
      count,
      countLater: w.renderCount,
      pending: w.updatePending,
      events,
      bodyChildren: w.shadowRoot.querySelector('.body').children.length,
    };
    document.body.append(w); // re-attached: rebuilt and rendered with the current attribute
    return result;
  });
  assert.equal(after.pending, false, 'removal cancels the scheduled render');
  assert.equal(after.countLater, after.count, 'no render after removal');
  assert.equal(after.events, 0, 'no change event from a removed widget');
  assert.equal(after.bodyChildren, 0, 'controls released on removal');
  await page.waitForFunction(
    () => document.querySelector('headlab-basis-rotation')?.shadowRoot.querySelector('input[type=range]')?.valueAsNumber === 60,
  );
  assert.deepEqual(page.problems, []);
});

test('a page-set color-scheme wins over the reader preference', async () => {
  const page = await session.newPage({ colorScheme: 'light' });
  await page.goto(`${session.url}dark.html`);
  await rendered(page, 'headlab-value-swap');
  const bg = await page.evaluate(
    () => getComputedStyle(document.querySelector('headlab-value-swap').shadowRoot.querySelector('.body')).backgroundColor,
  );
  assert.equal(bg, 'rgb(32, 32, 38)'); // the dark panel colour of widgets/base/theme.ts
  const auto = await session.newPage({ colorScheme: 'dark' });
  await auto.goto(`${session.url}index.html`); // no color-scheme set by the page: follow the preference
  await rendered(auto, 'headlab-value-swap');
  const bgAuto = await auto.evaluate(
    () => getComputedStyle(document.querySelector('headlab-value-swap').shadowRoot.querySelector('.body')).backgroundColor,
  );
  assert.equal(bgAuto, 'rgb(32, 32, 38)');
  assert.deepEqual([...page.problems, ...auto.problems], []);
});

test('article at 360 px wide: no widget wider than the viewport', async () => {
  const s = await startSession({ csp: true });
  try {
    for (const colorScheme of ['light', 'dark']) {
      const page = await s.newPage({ colorScheme, viewport: { width: 360, height: 740 } });
      await page.goto(`${s.url}${ARTICLE}`);
      for (const tag of ARTICLE_TAGS) await rendered(page, tag);
      for (const tag of ARTICLE_TAGS) {
        // Every instance (the first article has two quizzes); the screenshot shows the first.
        for (const widget of await page.locator(tag).all()) {
          const box = await widget.boundingBox();
          assert.ok(box.x >= 0 && box.x + box.width <= 360, `${tag} spans ${box.x}..${box.x + box.width}`);
        }
        await screenshot(page.locator(tag).first(), `${tag.replace('headlab-', '')}-360-${colorScheme}`);
      }
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 360, 'page scrolls sideways');
      assert.deepEqual(page.problems, []);
    }
  } finally {
    await s.close();
  }
});
