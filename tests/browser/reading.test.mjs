// Site-wide reading mechanisms of the widget base class and the site (docs/conventions.md,
// "Pages"): the one Download menu per widget, a URL hash that names a widget's state scrolls
// to it (on load and when a prose link is followed), typed fields validated as the reader
// types (bindField), prose tables and wide equations in labelled scroll boxes.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { screenshot, startSession } from './helpers.mjs';
import { rendered } from './widget-fixtures.mjs';

let session;
before(async () => {
  session = await startSession({ csp: true });
});
after(async () => {
  await session?.close();
});

const ARTICLE = 'articles/projections-matching-and-content.html';

async function open(hash = '', options = {}) {
  const page = await session.newPage(options);
  await page.goto(`${session.url}${ARTICLE}${hash}`);
  for (const s of ['#ablation', '#value-swap', '#qk-basis']) await rendered(page, s);
  return page;
}

/** Whether the element's box is inside the viewport (at least its top half). */
const inView = (page, sel) =>
  page.evaluate((s) => {
    const r = document.querySelector(s).getBoundingClientRect();
    return r.top >= -1 && r.top < innerHeight / 2;
  }, sel);

test('one Download menu per widget: a single Tab stop while closed; Enter opens it, Escape closes it and returns focus; the buttons download', async () => {
  const page = await open();
  const host = page.locator('#qk-basis');
  const counts = await page.evaluate(() => {
    const root = document.querySelector('#qk-basis').shadowRoot;
    return {
      menus: root.querySelectorAll('.export-menu').length,
      visibleButtons: [...root.querySelectorAll('[data-export]')].filter((b) => b.checkVisibility()).length,
    };
  });
  assert.deepEqual(counts, { menus: 1, visibleButtons: 0 });
  const summary = host.locator('.export-menu > summary');
  assert.equal(await summary.getAttribute('aria-label'), 'Download this figure or its data');
  await summary.focus();
  await page.keyboard.press('Enter');
  const svgButton = host.locator('button[data-export$=".svg"]').first();
  await svgButton.waitFor({ state: 'visible' });
  await page.keyboard.press('Tab');
  assert.equal(
    await page.evaluate(() => document.querySelector('#qk-basis').shadowRoot.activeElement?.dataset.export),
    await svgButton.getAttribute('data-export'),
  );
  await page.keyboard.press('Escape');
  assert.equal(await page.evaluate(() => document.querySelector('#qk-basis').shadowRoot.querySelector('.export-menu').open), false);
  assert.equal(await page.evaluate(() => document.querySelector('#qk-basis').shadowRoot.activeElement?.localName), 'summary');
  await summary.click();
  const [d] = await Promise.all([page.waitForEvent('download'), svgButton.click()]);
  assert.match(d.suggestedFilename(), /^query-key-canvas-.*\.svg$/);
  await screenshot(host, 'reading-export-menu-open');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("a hash naming a widget's state scrolls to it on load (after it renders) and rings it", async () => {
  const page = await open('#qk-basis.angle=25', { viewport: { width: 1000, height: 700 } });
  await page.waitForFunction(() => document.querySelector('#qk-basis').angle === 25);
  await page.waitForFunction(() => {
    const r = document.querySelector('#qk-basis').getBoundingClientRect();
    return r.top >= -1 && r.top < innerHeight / 2;
  });
  assert.ok(await inView(page, '#qk-basis'));
  assert.equal(
    await page.evaluate(() => document.querySelector('#ablation').getBoundingClientRect().bottom < 0),
    true,
    'the earlier widget is scrolled past',
  );
  assert.equal(await page.evaluate(() => document.querySelector('#qk-basis').hasAttribute('data-hash-target')), true);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('a prose state link sets the state, scrolls to the widget and moves focus into it', async () => {
  const page = await open('', { viewport: { width: 1000, height: 700 } });
  await page.evaluate(() => {
    const p = document.createElement('p');
    p.innerHTML =
      '<a id="probe-link" class="state-link" href="#value-swap.column-a=1&value-swap.column-b=3">swap the first and third columns</a>';
    document.querySelector('h1').after(p);
  });
  assert.equal(await inView(page, '#value-swap'), false);
  await page.locator('#probe-link').click();
  await page.waitForFunction(() => document.querySelector('#value-swap').getAttribute('column-b') === '3');
  await page.waitForFunction(() => {
    const r = document.querySelector('#value-swap').getBoundingClientRect();
    return r.top >= -1 && r.top < innerHeight / 2;
  });
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'value-swap');
  // The ▶ after a state link comes from the site CSS, not from the prose.
  assert.match(await page.evaluate(() => getComputedStyle(document.querySelector('#probe-link'), '::after').content), /▶/);
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'value-swap', 'Tab continues inside the widget');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('bindField: an invalid or empty field says why beside it and keeps the last valid value; typing commits after a pause, Enter at once', async () => {
  const page = await open();
  const r = await page.evaluate(async () => {
    // Waits for the state `ready()` describes, checked after every change to the probe's shadow
    // tree (the field's message and aria-invalid) and after every commit: never for a time.
    const until = (ready) =>
      new Promise((resolve) => {
        if (ready()) {
          resolve();
          return;
        }
        const observer = new MutationObserver(() => {
          if (ready()) {
            observer.disconnect();
            resolve();
          }
        });
        observer.observe(probe.shadowRoot, { subtree: true, childList: true, attributes: true, characterData: true });
      });
    // A minimal widget on the shared base class (the class every headlab-* element extends).
    const Base = Object.getPrototypeOf(customElements.get('headlab-value-swap'));
    class FieldProbe extends Base {
      static needsCore = false;
      value = 3;
      commits = [];
      get state() {
        return { value: this.value };
      }
      build() {
        const label = document.createElement('label');
        label.textContent = 'Seed ';
        this.input = document.createElement('input');
        this.input.type = 'text';
        label.append(this.input);
        this.body.append(label);
        this.field = this.bindField(this.input, {
          label: 'The seed',
          parse: (text) => {
            const n = Number(text);
            if (!Number.isInteger(n) || n < 0 || n > 9) {
              const err = new Error(`The seed must be a whole number from 0 to 9, not "${text}"`);
              err.name = 'WidgetInputError'; // what the widgets' WidgetInputError is called
              throw err;
            }
            return n;
          },
          commit: (n) => {
            this.value = n;
            this.commits.push(n);
            this.onCommit?.();
          },
          current: () => String(this.value),
          delay: 200,
        });
      }
      render() {
        this.field.show(String(this.value));
      }
    }
    customElements.define('field-probe', FieldProbe);
    const probe = document.createElement('field-probe');
    document.querySelector('main').append(probe);
    await until(() => probe.renderCount > 0 && probe.shadowRoot.querySelector('input')?.value === '3');
    const input = probe.shadowRoot.querySelector('input');
    const message = () => probe.shadowRoot.querySelector('.field-problem');
    const type = (text) => {
      input.value = text;
      input.dispatchEvent(new Event('input', { bubbles: true }));
    };
    const out = { initial: input.value, describedBy: input.getAttribute('aria-describedby') === message().id };
    type('7');
    out.beforePause = probe.commits.slice();
    out.waitingBeforePause = probe.updatePending;
    await new Promise((resolve) => {
      probe.onCommit = resolve;
    }); // the pause's check has committed
    probe.onCommit = null;
    out.afterPause = probe.commits.slice();
    type('');
    await until(() => input.getAttribute('aria-invalid') === 'true');
    out.empty = {
      invalid: input.getAttribute('aria-invalid'),
      message: message().textContent,
      value: probe.value,
      visible: message().checkVisibility(),
    };
    type('12');
    await until(() => message().textContent.includes('"12"'));
    out.invalid = { invalid: input.getAttribute('aria-invalid'), message: message().textContent, value: probe.value, text: input.value };
    probe.renderNow?.();
    type('4');
    input.dispatchEvent(new Event('change', { bubbles: true })); // Enter: no wait
    out.enter = { commits: probe.commits.slice(), invalid: input.getAttribute('aria-invalid'), message: message().textContent };
    return out;
  });
  assert.equal(r.initial, '3');
  assert.equal(r.describedBy, true);
  assert.deepEqual(r.beforePause, [], 'nothing is committed while the reader is still typing');
  assert.equal(r.waitingBeforePause, true, 'the check is scheduled (updatePending) while the reader types');
  assert.deepEqual(r.afterPause, [7]);
  assert.deepEqual(r.empty, { invalid: 'true', message: 'The seed is empty; the last valid value (7) is kept.', value: 7, visible: true });
  assert.deepEqual(r.invalid, {
    invalid: 'true',
    message: 'The seed must be a whole number from 0 to 9, not "12"; the last valid value (7) is kept.',
    value: 7,
    text: '12',
  });
  assert.deepEqual(r.enter, { commits: [7, 4], invalid: 'false', message: '' });
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('prose tables and equations that do not fit at 360 px scroll inside labelled, focusable boxes', async () => {
  const page = await session.newPage({ viewport: { width: 360, height: 800 }, isMobile: true, hasTouch: true });
  await page.goto(`${session.url}articles/feature-recovery-two-projections.html`);
  await page.evaluate(() => document.fonts.ready);
  // The site script has marked the boxes for the laid-out page (after its first frame, again once
  // the fonts are in): every box marked exactly when it overflows. A state; the checks below
  // then read the marks' labels and roles.
  await page.waitForFunction(() =>
    [...document.querySelectorAll('.hl-scroll, .katex-display')].every(
      (b) => b.scrollWidth > b.clientWidth + 1 === b.hasAttribute('data-overflows'),
    ),
  );
  const boxes = await page.evaluate(() =>
    [...document.querySelectorAll('.hl-scroll, .katex-display')].map((b) => ({
      overflows: b.scrollWidth > b.clientWidth + 1,
      tab: b.tabIndex,
      label: b.getAttribute('aria-label'),
      role: b.getAttribute('role'),
    })),
  );
  assert.ok(boxes.length > 0);
  for (const b of boxes.filter((x) => x.overflows)) {
    assert.equal(b.tab, 0);
    assert.equal(b.role, 'region');
    assert.match(b.label, /\(scrolls sideways\)$/);
  }
  for (const b of boxes.filter((x) => !x.overflows)) assert.equal(b.role, null);
  assert.ok(await page.evaluate(() => document.scrollingElement.scrollWidth <= 360));
  assert.deepEqual(page.problems, []);
  await page.close();
});
