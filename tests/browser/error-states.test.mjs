// Error states are announced as errors: every element the package declares (custom-elements.json),
// put in an error state — the figures reading a model whose files are missing (the own-model and
// the max-digit families, the seed grid's file), every other element given a bad value of one of its
// attributes — shows its message in a live region that interrupts (role="alert" or
// aria-live="assertive"), and nothing a screen reader can reach in it still says it is loading or
// computing (a "Loading…" status left in the accessibility tree beside an error told a reader to wait).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { root, startSession } from './helpers.mjs';
import { bundleDir } from './widget-fixtures.mjs';

const TAGS = JSON.parse(fs.readFileSync(path.join(root, 'build/site/headlab/custom-elements.json'), 'utf8'))
  .modules.flatMap((m) => m.declarations.filter((d) => d.customElement).map((d) => d.tagName))
  .sort();
const source = (t) => fs.readFileSync(path.join(root, 'widgets', `${t}.ts`), 'utf8');
const TRANSFORMER_FIGURES = TAGS.filter((t) => source(t).includes(' extends TransformerWidget<'));
const MAX_DIGIT_FIGURES = TAGS.filter((t) => / extends MaxDigitWidget[<\s]/.test(source(t)));
/** Values tried on an element's attributes, in turn, until it shows an error. */
const BAD = ['-1e309', 'NaN', '[[1]]', 'x'];

let dir, session;
before(async () => {
  const transformer = TRANSFORMER_FIGURES.map((t) => `<${t}></${t}>`).join('\n');
  const maxDigit = MAX_DIGIT_FIGURES.map((t) => `<${t} model="md"></${t}>`).join('\n');
  dir = bundleDir({
    'errors.html': {
      body: `<headlab-transformer-model id="gone" src="missing.safetensors">\n${transformer}\n</headlab-transformer-model>
<headlab-max-digit-model id="md" src="missing.json" loading="eager"></headlab-max-digit-model>
${maxDigit}
<headlab-seed-grid src="missing-seeds.json"></headlab-seed-grid>
<main></main>`,
    },
  });
  session = await startSession({ dir, csp: true });
});
after(async () => {
  await session?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test(
  `all ${TAGS.length} elements: an error is announced as an error and nothing reachable says loading`,
  { timeout: 300_000 },
  async () => {
    const page = await session.newPage();
    await page.goto(`${session.url}errors.html`);
    await page.waitForFunction((tags) => tags.every((t) => customElements.get(t)), TAGS);
    const found = await page.evaluate(
      async ([tags, bad]) => {
        const out = {};
        const main = document.querySelector('main');
        /** Text a screen reader can reach inside `e` (open shadow roots and slotted content followed). */
        const reachable = (e) => {
          const parts = [];
          const walk = (node, hidden) => {
            if (node.nodeType === Node.TEXT_NODE) {
              if (!hidden && node.data.trim()) parts.push(node.data.trim());
              return;
            }
            if (node.nodeType !== Node.ELEMENT_NODE && node.nodeType !== Node.DOCUMENT_FRAGMENT_NODE) return;
            let h = hidden;
            if (node.nodeType === Node.ELEMENT_NODE) {
              const style = getComputedStyle(node);
              h =
                h ||
                node.hidden ||
                node.getAttribute('aria-hidden') === 'true' ||
                style.display === 'none' ||
                style.visibility === 'hidden';
              if (node.localName === 'slot') {
                for (const n of node.assignedNodes({ flatten: true })) walk(n, h);
                return;
              }
            }
            for (const child of node.childNodes) walk(child, h);
          };
          walk(e.shadowRoot ?? e, false);
          return parts.join(' | ');
        };
        const announced = (e) =>
          [...(e.shadowRoot ?? e).querySelectorAll('[role="alert"], [aria-live="assertive"]')]
            .filter((a) => !a.hidden && a.checkVisibility())
            .map((a) => a.textContent.trim())
            .filter(Boolean);
        for (const tag of tags) {
          let e = document.querySelector(tag);
          let attribute = null;
          if (!e) {
            // Not a model figure: try its attributes with bad values until it shows an error.
            const observed = [...(customElements.get(tag).observedAttributes ?? [])];
            // The quiz's author data is its markup: one choice is an error (it needs two, one correct).
            if (tag === 'headlab-choice-quiz') {
              e = document.createElement(tag);
              e.innerHTML = '<p slot="question">Which?</p><div slot="choice" data-correct>A</div>';
              main.append(e);
              await e.updateComplete;
              attribute = 'one choice';
            }
            if (!e?.error) e?.remove();
            if (e?.error) observed.length = 0;
            else e = null;
            search: for (const name of observed) {
              for (const value of bad) {
                e = document.createElement(tag);
                if (tag === 'headlab-choice-quiz')
                  e.innerHTML = '<p slot="question">Which?</p><div slot="choice">A</div><div slot="choice" data-correct>B</div>';
                e.setAttribute(name, value);
                main.append(e);
                await e.updateComplete;
                if (e.error) {
                  attribute = `${name}="${value}"`;
                  break search;
                }
                e.remove();
                e = null;
              }
            }
            if (!e) {
              out[tag] = { error: null };
              continue;
            }
          }
          const ok = await e.updateComplete;
          out[tag] = { ok, attribute, error: e.error, announced: announced(e), reachable: reachable(e) };
        }
        return out;
      },
      [TAGS, BAD],
    );
    for (const tag of TAGS) {
      const f = found[tag];
      if (tag === 'headlab-value') continue; // a number in the prose: its fallback text stays, no widget
      assert.ok(f.error, `${tag}: no error state found (${JSON.stringify(f)})`);
      assert.equal(f.ok, false, tag);
      assert.ok(f.announced.length > 0, `${tag} (${f.attribute ?? 'missing files'}): the error "${f.error}" is in no alert`);
      assert.ok(
        f.announced.some(
          (a) =>
            a.toLowerCase().includes(f.error.slice(0, 40).toLowerCase()) || f.error.toLowerCase().includes(a.slice(0, 40).toLowerCase()),
        ),
        `${tag}: announced ${JSON.stringify(f.announced)}, error ${f.error}`,
      );
      assert.doesNotMatch(f.reachable, /loading|computing|waiting|…$/i, `${tag} (${f.attribute ?? 'missing files'}): "${f.reachable}"`);
    }
    await page.close();
  },
);
