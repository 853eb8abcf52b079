// The patching figure's answer and wrong token for a vocabulary too large for a <select>
// (widgets/transformer/token-combobox.ts): a labelled combobox searched by text or id, operated by
// the keyboard alone (type, ArrowDown, Enter, Escape, Tab) and by a tap, with the ARIA state a
// screen reader reads (role, label, aria-expanded, aria-activedescendant, aria-selected); each pick
// recomputes the figure on that token. Screenshots of the open list at 360 and 1280 px, light and
// dark. A random model of 2,000 named tokens ("w0" … "w1999"), served by the test.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { screenshot, startSession } from './helpers.mjs';
import { randomModelFile, wasmTransformerCore } from '../wasm/helpers.mjs';

const SHAPE = { n_layers: 2, n_heads: 2, d_model: 16, d_head: 8, n_ctx: 32, d_vocab: 2000 };
const NAMES = Array.from({ length: SHAPE.d_vocab }, (_, t) => `w${t}`);
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Token search</title><link rel="stylesheet" href="/headlab/headlab.css"><script type="module" src="/headlab/autoload.js"></script></head>
<body><main>
<headlab-transformer-model id="m" src="/test-combobox/m.safetensors" config="/test-combobox/m.json"></headlab-transformer-model>
<headlab-transformer-patching id="patching" model="m" prompt="w5 w9 w13 w5 w9"></headlab-transformer-patching>
</main></body></html>`;

let session;
before(async () => {
  const files = {
    'page.html': ['text/html', PAGE],
    'm.json': ['application/json', JSON.stringify({ ...SHAPE, normalization: 'none', token_names: NAMES })],
    'm.safetensors': ['application/octet-stream', Buffer.from(randomModelFile(await wasmTransformerCore(), SHAPE, 11))],
  };
  session = await startSession({
    csp: true,
    handle: (req, res, headers) => {
      const name = req.url.startsWith('/test-combobox/') ? req.url.slice('/test-combobox/'.length) : null;
      if (!name || !files[name]) return false;
      res.writeHead(200, { 'Content-Type': files[name][0], ...headers });
      res.end(files[name][1]);
      return true;
    },
  });
});
after(async () => {
  await session?.close();
});

/** The figure's state once its analysis of the current choice is shown. */
async function settled(page, answer) {
  await page.waitForFunction(
    (a) => {
      const e = document.getElementById('patching');
      return e?.state?.answer === a && !e.busy && !e.updatePending;
    },
    answer,
    { timeout: 60_000 },
  );
  return page.evaluate(() => document.getElementById('patching').state);
}

/** The answer combobox's ARIA state as a screen reader reads it. */
function comboState(page) {
  return page.evaluate(() => {
    const root = document.getElementById('patching').shadowRoot;
    const input = root.querySelector('input[name=answer-search]');
    const list = root.getElementById(input.getAttribute('aria-controls'));
    const active = input.getAttribute('aria-activedescendant');
    return {
      role: input.getAttribute('role'),
      label: input.closest('label').textContent.trim(),
      value: input.value,
      expanded: input.getAttribute('aria-expanded'),
      listVisible: !list.hidden && list.getBoundingClientRect().height > 0,
      options: [...list.querySelectorAll('[role=option]')].map((o) => o.querySelector('.text').textContent),
      active: active ? root.getElementById(active)?.querySelector('.text').textContent : null,
      selected: [...list.querySelectorAll('[aria-selected=true]')].map((o) => o.querySelector('.text').textContent),
      selects: [...root.querySelectorAll('select[name=answer], select[name=wrong]')].map((s) => s.checkVisibility()),
    };
  });
}

test('a vocabulary of 2,000 tokens: the answer is searched by text or id and picked with the keyboard or a tap', async () => {
  const page = await session.newPage();
  await page.goto(`${session.url}test-combobox/page.html`);
  await page.waitForFunction(() => document.getElementById('patching')?.state?.answer != null, null, { timeout: 60_000 });
  const first = await page.evaluate(() => document.getElementById('patching').state);
  let s = await comboState(page);
  assert.deepEqual([s.role, s.label, s.expanded, s.listVisible], ['combobox', 'Answer', 'false', false]);
  assert.equal(s.value, NAMES[first.answer], 'the field shows the current answer');
  assert.deepEqual(s.selects, [false, false], 'no <select> of 2,000 options');

  // Keyboard: type, the matches (exact first, then by prefix), ArrowDown to the second, Enter.
  const input = page.locator('#patching input[name=answer-search]');
  await input.focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('w17');
  s = await comboState(page);
  assert.deepEqual([s.expanded, s.listVisible], ['true', true]);
  assert.deepEqual(s.options.slice(0, 4), ['w17', 'w170', 'w171', 'w172']);
  assert.equal(s.options.length, 12);
  assert.deepEqual([s.active, s.selected], ['w17', ['w17']]);
  await page.keyboard.press('ArrowDown');
  s = await comboState(page);
  assert.deepEqual([s.active, s.selected], ['w170', ['w170']]);
  await page.keyboard.press('Enter');
  let state = await settled(page, 170);
  assert.equal(await page.evaluate(() => document.getElementById('patching').getAttribute('answer')), '170');
  s = await comboState(page);
  assert.deepEqual([s.value, s.expanded, s.listVisible], ['w170', 'false', false]);
  assert.ok(Number.isFinite(state.clean_logit_difference), 'the figure recomputed the logit difference for w170');

  // Escape puts the current token back; text that names no token lists none.
  await page.keyboard.press('Control+A');
  await page.keyboard.type('zz');
  s = await comboState(page);
  assert.deepEqual([s.expanded, s.options], ['true', []]);
  await page.keyboard.press('Escape');
  s = await comboState(page);
  assert.deepEqual([s.value, s.expanded], ['w170', 'false']);

  // An id typed and the field left (Tab) picks that token.
  await page.keyboard.press('Control+A');
  await page.keyboard.type('1234');
  await page.keyboard.press('Tab');
  await settled(page, 1234);
  assert.equal((await comboState(page)).value, 'w1234');

  // A tap on a match.
  await input.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('w199');
  await page.locator('#patching [role=option]', { hasText: 'w1995' }).click();
  state = await settled(page, 1995);
  assert.equal(state.wrong, first.wrong, 'the wrong token stayed');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('the open list at 360 and 1280 px, light and dark: inside the page, every match a 44 px target', async () => {
  for (const colorScheme of ['light', 'dark']) {
    for (const width of [360, 1280]) {
      const page = await session.newPage({ colorScheme, viewport: { width, height: 800 } });
      await page.goto(`${session.url}test-combobox/page.html`);
      await page.waitForFunction(() => document.getElementById('patching')?.state?.answer != null, null, { timeout: 60_000 });
      await page.locator('#patching input[name=wrong-search]').focus();
      await page.keyboard.press('Control+A');
      await page.keyboard.type('w4');
      const box = await page.evaluate(() => {
        const root = document.getElementById('patching').shadowRoot;
        const list = root.querySelector('input[name=wrong-search]').closest('.token-combobox').querySelector('[role=listbox]');
        const r = list.getBoundingClientRect();
        const heights = [...list.querySelectorAll('[role=option]')].map((o) => o.getBoundingClientRect().height);
        return {
          left: r.left,
          right: r.right,
          heights,
          overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        };
      });
      assert.ok(box.left >= 0 && box.right <= width, `${colorScheme} ${width}: the list lies inside the page (${box.left}–${box.right})`);
      assert.ok(box.overflow <= 0, `${colorScheme} ${width}: the page scrolls sideways by ${box.overflow} px`);
      assert.ok(box.heights.length > 0 && box.heights.every((h) => h >= 44), `${colorScheme} ${width}: option heights ${box.heights}`);
      await screenshot(page, `token-combobox-${width}-${colorScheme}`);
      assert.deepEqual(page.problems, []);
      await page.close();
    }
  }
});
